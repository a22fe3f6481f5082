/**
 * Text cut for the model: the windows of a long text around what a query names, and the longest head
 * of a text that fits a token budget.
 */
import type { TokenCounter } from '../ports.ts';

const WINDOW = 160;
const MAX_WINDOWS = 3;

/** The query's words and ids (3+ characters), lower-cased. */
function needles(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_./:-]{3,}/gu) ?? [])];
}

/**
 * `text` when short; otherwise up to three windows of ±160 characters around the first place each
 * query word occurs (merged when they overlap, in text order), `…` where text is left out.
 */
export function snippet(text: string, query: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= 2 * WINDOW) return flat;
  const lower = flat.toLowerCase();
  const spans: [number, number][] = [];
  for (const n of needles(query)) {
    const at = lower.indexOf(n);
    if (at >= 0) spans.push([Math.max(0, at - WINDOW), Math.min(flat.length, at + n.length + WINDOW)]);
  }
  if (spans.length === 0) spans.push([0, 2 * WINDOW]);
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1]);
    else merged.push([...s]);
  }
  return merged
    .slice(0, MAX_WINDOWS)
    .map(([a, b]) => `${a > 0 ? '…' : ''}${flat.slice(a, b)}${b < flat.length ? '…' : ''}`)
    .join(' ');
}

/** The longest head of `text` (cut at a line end when one is near) whose count is within `tokens`. */
export function fitText(text: string, counter: TokenCounter, tokens: number): string {
  if (counter.countText(text) <= tokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.countText(text.slice(0, mid)) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  // Never cut a surrogate pair.
  if (lo > 0 && /[\uD800-\uDBFF]/.test(text[lo - 1]!)) lo--;
  const line = text.lastIndexOf('\n', lo);
  return line > lo * 0.8 ? text.slice(0, line + 1) : text.slice(0, lo);
}
