/**
 * Two readings of a search query that is a question, from closed-class English words only (nothing
 * fitted to a data set):
 *
 * - its **statement form**, the shape of what a conversation index holds (turns are embedded as
 *   `Speaker: text`): the wh-word and its auxiliary dropped, the one speaker it names moved to the
 *   prefix — `What activities does Melanie partake in?` → `Melanie: activities partake in`;
 * - whether it **asks for several things** — a plural noun right after `what`/`which` (`what
 *   activities does …`, `which cities has …`), `what kinds/types/sorts of`, `what are some`, or a
 *   quantifier over occasions or people (`ever`, `all`, `both`, `every`, `how many`) — whose answer
 *   is spread over several sessions rather than one turn and its neighbours.
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

/**
 * The statement form of `question` (see the file comment): `Speaker: statement` when it names
 * exactly one `speaker` (spelled as indexed), else the bare statement (the question itself when it
 * is not a wh-question).
 */
export function statementQuery(question: string, speaker?: string): string {
  return speaker === undefined
    ? statementOf(question)
    : `${speaker}: ${withoutNames(statementOf(question), [speaker])}`;
}

/**
 * A plural noun right after the wh-word, or after one modifier, followed by an auxiliary or a
 * preposition: `what activities does`, `which cities has`, `what outdoor activities has`, `what
 * areas of` (lower case, ending in `s` but not `-ss` or `'s`). The word after it tells the noun from
 * a verb: `what motivates Joanna` asks for one thing.
 */
const PLURAL_AFTER_WH =
  /\b(?:[Ww]hat|[Ww]hich)\s+(?:[a-z][\w+-]*\s+)?([a-z][a-z-]*[^s'’]s)\s+(?:do|does|did|is|are|was|were|has|have|had|can|could|would|will|should|might|of|for|in|at|from|with|to)\b/;
/** Closed-class words that end in `s` without being plural nouns. */
const NOT_PLURAL = new Set([
  'is',
  'was',
  'has',
  'does',
  'this',
  'its',
  'his',
  'us',
  'as',
  'thus',
  'always',
  'perhaps',
]);
const KINDS = /\b(what|which)\s+(kinds|types|sorts)\s+of\b/i;
const SOME = /\b(are|were|name|list)\s+some\b/i;
const QUANTIFIER = /\b(ever|all|both|every|how many)\b/i;

/** Whether `question` asks for several things (see the file comment). */
export function asksForSeveral(question: string): boolean {
  const plural = PLURAL_AFTER_WH.exec(question);
  return (
    (plural !== null && !NOT_PLURAL.has(plural[1]!)) ||
    KINDS.test(question) ||
    SOME.test(question) ||
    QUANTIFIER.test(question)
  );
}
