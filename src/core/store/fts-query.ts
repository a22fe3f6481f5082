/**
 * Escaping user text for SQLite FTS5 `MATCH`. Every token of letters/digits/underscore becomes a
 * double-quoted string, joined with ` OR `, so FTS5 operators in the text (`NEAR`, `AND`, `*`, `-`,
 * `^`, `:`, parentheses, quotes) are never interpreted. CJK text goes through the LIKE fallback.
 */

import { porterStem } from './porter.ts';

const TOKEN = /[\p{L}\p{N}_]+/gu;
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}/g;
const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

/** Lower-cased word tokens of the text (Unicode letters, digits, `_`). */
export function queryTokens(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).filter((t) => t.length > 0);
}

/**
 * The FTS5 query for `text`, or `''` when it has no tokens (then FTS is not queried at all): every
 * distinct token quoted and OR-ed (000/004 §2.2). `dropStopwords` leaves out English stopwords;
 * a text made of stopwords only then has no query.
 */
export function toFtsQuery(text: string, options: { dropStopwords?: boolean } = {}): string {
  const seen = new Set<string>();
  const quoted: string[] = [];
  for (const t of queryTokens(text)) {
    if (seen.has(t) || (options.dropStopwords === true && STOPWORDS.has(t))) continue;
    seen.add(t);
    quoted.push(`"${t.replaceAll('"', '""')}"`);
  }
  return quoted.join(' OR ');
}

/**
 * English function words left out of keyword queries (the usual IR list: articles, pronouns,
 * auxiliaries, prepositions, conjunctions, question words). Indexed text keeps them.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she should ' +
    'so some such than that the their theirs them themselves then there these they this those through to ' +
    'too under until up very was we were what when where which while who whom why will with would you ' +
    'your yours yourself yourselves s t d ll m re ve don doesn didn isn wasn aren weren wouldn shouldn ' +
    'couldn hasn haven hadn also might must shall'
  ).split(' '),
);

/** The keyword terms of a text: its tokens without stopwords, Porter-stemmed (FTS5 `porter`), distinct. */
export function keywordTerms(text: string): string[] {
  return [
    ...new Set(
      queryTokens(text)
        .filter((t) => !STOPWORDS.has(t))
        .map(porterStem),
    ),
  ];
}

export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/** Runs of ≥ 2 consecutive CJK characters (000/004 fallback). */
export function cjkRuns(text: string): string[] {
  return [...new Set(text.match(CJK_RUN) ?? [])];
}

/** 000/004's CJK test and runs: `[\u4e00-\u9fff]` only (CJK Unified Ideographs), as CowAgent checks. */
const COWAGENT_CJK_RUN = /[\u4e00-\u9fff]{2,}/g;
const COWAGENT_CJK_CHAR = /[\u4e00-\u9fff]/;

export function hasCowagentCjk(text: string): boolean {
  return COWAGENT_CJK_CHAR.test(text);
}

/** CowAgent's LIKE terms: every run of ≥ 2 consecutive ideographs, whole (a lone ideograph gives none). */
export function cowagentCjkRuns(text: string): string[] {
  return [...new Set(text.match(COWAGENT_CJK_RUN) ?? [])];
}

/**
 * The overlapping bigrams of every CJK run, for `LIKE '%bigram%'`. Upstream matches whole runs,
 * so a CJK question never matches a text that words it differently; bigrams (the usual CJK
 * indexing unit) do. Capped at 40 (D1's 100-parameter limit).
 */
export function cjkBigrams(text: string): string[] {
  const out = new Set<string>();
  for (const run of cjkRuns(text)) {
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  }
  return [...out].slice(0, 40);
}
