/**
 * Small text helpers of the prompts; `trimTextWithTail` and `trimRunes` come from the core.
 */

/** KosmoKrator's over-length form: `{first N chars} [truncated — {len} chars]`. */
export function clipWithNote(text: string, max: number): string {
  const runes = Array.from(text);
  if (runes.length <= max) return text;
  return `${runes.slice(0, max).join('')} [truncated — ${runes.length} chars]`;
}
