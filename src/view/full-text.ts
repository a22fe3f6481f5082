/**
 * A row's full text on demand: a closed `<details>` whose summary gives its size in tokens and
 * characters, and whose body is the text, escaped, wrapping at any width. Closed details are neither
 * laid out nor read aloud until opened.
 */
import { esc, fmt } from './html.ts';

export function fullText(text: string | undefined, tokens: number | undefined, chars?: number): string {
  if (text === undefined) return '';
  const size = [
    tokens !== undefined ? `${fmt(tokens)} tokens` : '',
    `${fmt(chars ?? text.length)} characters`,
  ]
    .filter(Boolean)
    .join(', ');
  return `<details class="full"><summary>full text (${size})</summary><pre>${esc(text)}</pre></details>`;
}
