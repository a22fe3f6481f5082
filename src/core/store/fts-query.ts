/**
 * Escaping user text for SQLite FTS5 `MATCH`. Every token of letters/digits/underscore becomes a
 * double-quoted string, joined with ` OR `, so FTS5 operators in the text (`NEAR`, `AND`, `*`, `-`,
 * `^`, `:`, parentheses, quotes) are never interpreted. CJK text goes through the LIKE fallback.
 */

const TOKEN = /[\p{L}\p{N}_]+/gu;
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}/g;
const CJK_CHAR = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;

/** Lower-cased word tokens of the text (Unicode letters, digits, `_`). */
export function queryTokens(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).filter((t) => t.length > 0);
}

/** The FTS5 query for `text`, or `''` when it has no tokens (then FTS is not queried at all). */
export function toFtsQuery(text: string): string {
  const seen = new Set<string>();
  const quoted: string[] = [];
  for (const t of queryTokens(text)) {
    if (seen.has(t)) continue;
    seen.add(t);
    quoted.push(`"${t.replaceAll('"', '""')}"`);
  }
  return quoted.join(' OR ');
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
