/**
 * Text cutting helpers shared by the stages: code-point-safe heads and tails (Python `len`, Go runes),
 * UTF-8-safe byte prefixes (PHP `mb_strcut`), and 003's `trimTextWithTail`.
 */
import { codePointLength } from '../tokens/text-stats.ts';

/** The first `n` code points of `text` (never splits a surrogate pair). */
export function headCodePoints(text: string, n: number): string {
  if (n <= 0) return '';
  if (text.length <= n) return text;
  let units = 0;
  let points = 0;
  while (units < text.length && points < n) {
    const c = text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < text.length ? 2 : 1;
    points++;
  }
  return text.slice(0, units);
}

/** The last `n` code points of `text`. */
export function tailCodePoints(text: string, n: number): string {
  if (n <= 0) return '';
  if (text.length <= n) return text;
  let units = text.length;
  let points = 0;
  while (units > 0 && points < n) {
    const c = text.charCodeAt(units - 1);
    units -= c >= 0xdc00 && c <= 0xdfff && units - 2 >= 0 ? 2 : 1;
    points++;
  }
  return text.slice(units);
}

/** Go's `trimRunes`: the first `limit` runes; `limit ≤ 0` → unchanged. */
export function trimRunes(text: string, limit: number): string {
  if (limit <= 0) return text;
  return codePointLength(text) <= limit ? text : headCodePoints(text, limit);
}

/** The marker `trimTextWithTail` puts between head and tail. */
export const TRIM_TAIL_MARKER = '\n... (truncated) ...\n';

/**
 * 003 `trimTextWithTail(s, N)`: over `N` runes → the first `floor(2N/3)` runes, `"\n... (truncated) ...\n"`,
 * the last `N − floor(2N/3)` runes (each at least 1). 800 → 533 + 267; 12000 → 8000 + 4000. `N ≤ 0` → unchanged.
 */
export function trimTextWithTail(text: string, maxRunes: number): string {
  if (maxRunes <= 0) return text;
  const total = codePointLength(text);
  if (total <= maxRunes) return text;
  const head = Math.max(1, Math.floor((maxRunes * 2) / 3));
  const tail = Math.max(1, maxRunes - Math.floor((maxRunes * 2) / 3));
  return headCodePoints(text, head) + TRIM_TAIL_MARKER + tailCodePoints(text, tail);
}

/** The longest prefix of `text` whose UTF-8 encoding is at most `maxBytes` bytes (`mb_strcut`). */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** The longest suffix of `text` whose UTF-8 encoding is at most `maxBytes` bytes. */
export function utf8Suffix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    const pair = c >= 0xdc00 && c <= 0xdfff && i - 2 >= 0;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i -= pair ? 2 : 1;
  }
  return text.slice(i);
}

/** `count("\n") + 1`, or 0 for the empty string when `emptyIsZero` (003). */
export function countLines(text: string, emptyIsZero = false): number {
  if (text === '') return emptyIsZero ? 0 : 1;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** `{n}B` under 1024, else `{x.x}KB`, else `{x.x}MB` (003 §5.2, CowAgent `format_size`): 51200 → `50.0KB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** `1234` → `1,234` (no locale dependence). */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
