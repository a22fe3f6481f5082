/**
 * Rune-based (Unicode code point) clipping used by the prompts, as Go's `[]rune` slicing does in
 * tiancai (SEED-RULES §5.3). A local copy: `src/core/text/trim.ts` was not in the tree when this was
 * written; switch to it once it exists (same behaviour).
 */

/** The tiancai head+tail separator. */
export const TRIM_SEPARATOR = '\n... (truncated) ...\n';

/**
 * `trimTextWithTail(s, n)`: at most `n` runes kept; above that, the first `floor(2n/3)` runes, the
 * separator, and the last `n − floor(2n/3)` runes (1800 → 1200 + 600, 12000 → 8000 + 4000).
 */
export function trimTextWithTail(text: string, max: number): string {
  if (max <= 0) return '';
  const runes = Array.from(text);
  if (runes.length <= max) return text;
  const head = Math.floor((2 * max) / 3);
  return runes.slice(0, head).join('') + TRIM_SEPARATOR + runes.slice(runes.length - (max - head)).join('');
}

/** The first `max` runes of `text` (the text itself when it is short enough). */
export function clipRunes(text: string, max: number): string {
  if (text.length <= max) return text;
  const runes = Array.from(text);
  return runes.length <= max ? text : runes.slice(0, max).join('');
}

/** KosmoKrator's over-length form: `{first N chars} [truncated — {len} chars]`. */
export function clipWithNote(text: string, max: number): string {
  const runes = Array.from(text);
  if (runes.length <= max) return text;
  return `${runes.slice(0, max).join('')} [truncated — ${runes.length} chars]`;
}
