import { queryTokens } from './fts-query.ts';
import type { ChunkRecord, KeywordHit } from './memory-store.ts';
import { porterStem } from './porter.ts';

/** Tokens as FTS5 `porter unicode61` makes them: lower-cased Unicode words, Porter-stemmed. */
export function stemmedTokens(text: string): string[] {
  return queryTokens(text).map(porterStem);
}

/**
 * Okapi BM25 over in-memory chunks (the in-memory store's stand-in for FTS5 with the `porter`
 * tokenizer), returning ranks in SQLite's `bm25()` convention (negated: lower is better). Query
 * terms are stemmed like the text; the caller drops stopwords (see `toFtsQuery`).
 * @param k1 @default 1.2
 * @param b @default 0.75
 */
export function bm25Search(
  chunks: readonly ChunkRecord[],
  query: string,
  limit: number,
  k1 = 1.2,
  b = 0.75,
): KeywordHit[] {
  return createBm25Index(chunks, k1, b).search(query, limit);
}

export interface Bm25Index {
  /** The best `limit` chunks for the query's terms (stemmed here), best first. */
  search(query: string, limit: number): KeywordHit[];
}

/** Tokenizes and stems the chunks once, for many queries (see `bm25Search`). */
export function createBm25Index(chunks: readonly ChunkRecord[], k1 = 1.2, b = 0.75): Bm25Index {
  const docs = chunks.map((c) => {
    const tf = new Map<string, number>();
    const tokens = stemmedTokens(c.text);
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: tokens.length };
  });
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return {
    search(query, limit) {
      const terms = [...new Set(stemmedTokens(query))];
      if (terms.length === 0 || chunks.length === 0) return [];
      const hits: KeywordHit[] = [];
      for (const [i, d] of docs.entries()) {
        let score = 0;
        for (const t of terms) {
          const f = d.tf.get(t);
          if (!f) continue;
          const n = df.get(t) ?? 0;
          const idf = Math.log((docs.length - n + 0.5) / (n + 0.5) + 1);
          score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg));
        }
        if (score > 0) hits.push({ chunk: chunks[i]!, bm25: -score });
      }
      return hits.sort((x, y) => x.bm25 - y.bm25).slice(0, limit);
    },
  };
}
