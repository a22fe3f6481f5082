import { queryTokens } from './fts-query.ts';
import type { ChunkRecord, KeywordHit } from './memory-store.ts';

/**
 * Okapi BM25 over in-memory chunks (the in-memory store's stand-in for FTS5), returning ranks in
 * SQLite's `bm25()` convention (negated: lower is better). Tokens as FTS5 `unicode61` makes them.
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
  const terms = [...new Set(queryTokens(query))];
  if (terms.length === 0 || chunks.length === 0) return [];
  const docs = chunks.map((c) => queryTokens(c.text));
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const hits: KeywordHit[] = [];
  for (const [i, d] of docs.entries()) {
    let score = 0;
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of terms) {
      const f = tf.get(t);
      if (!f) continue;
      const n = df.get(t) ?? 0;
      const idf = Math.log((docs.length - n + 0.5) / (n + 0.5) + 1);
      score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg));
    }
    if (score > 0) hits.push({ chunk: chunks[i]!, bm25: -score });
  }
  return hits.sort((x, y) => x.bm25 - y.bm25).slice(0, limit);
}
