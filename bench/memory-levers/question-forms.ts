/**
 * Question forms for the memory-levers harness: the question restated in the shape of what is
 * indexed. Turns are embedded as `Speaker: text` in the first person and fact keys in the third, so
 * a `What activities does Melanie partake in?` is compared with statements, not questions: the
 * wh-phrase and its auxiliary (closed-class English function words, nothing fitted to a data set)
 * are dropped, and the speaker the question names, if exactly one, becomes the prefix.
 */

const WH = /^\s*(what|which|who|whom|whose|when|where|why|how)(\s+(many|much|long|often|old|far))?\b/i;
const AUX = /^(do|does|did|is|are|was|were|has|have|had|can|could|would|will|should|might)$/i;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `What activities does Melanie partake in?` → `activities Melanie partake in`; other text as is. */
export function statementOf(question: string): string {
  const text = question.replace(/\?+\s*$/, '');
  const wh = WH.exec(text);
  if (!wh) return question;
  const words = text.slice(wh[0].length).trim().split(/\s+/);
  const aux = words.findIndex((w) => AUX.test(w));
  if (aux >= 0 && aux <= 3) words.splice(aux, 1);
  return words.join(' ').trim() || question;
}

/** The text without the names (`Name` and `Name's`), spaces collapsed. */
export function withoutNames(text: string, names: Iterable<string>): string {
  let out = text;
  for (const n of names) out = out.replace(new RegExp(`\\b${escapeRegExp(n)}(['’]s)?\\b`, 'giu'), '');
  return out.replace(/\s+/g, ' ').trim();
}

/** `Name: statement without the name` (third person kept), as a turn of that speaker is indexed. */
export function speakerStatement(question: string, speaker: string): string {
  return `${speaker}: ${withoutNames(statementOf(question), [speaker])}`;
}

/** `Name: statement` with the name turned into `I` / `my`: the speaker's own first-person turn. */
export function firstPersonStatement(question: string, speaker: string): string {
  const name = escapeRegExp(speaker);
  const first = statementOf(question)
    .replace(new RegExp(`\\b${name}['’]s\\b`, 'giu'), 'my')
    .replace(new RegExp(`\\b${name}\\b`, 'giu'), 'I');
  return `${speaker}: ${first}`;
}
