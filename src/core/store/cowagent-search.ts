/**
 * The `cowagent` search mode: 000/004 §2.2 with the recommended fixes — 0.7 vector / 0.3 keyword,
 * BM25 ranked by `s/(1+s)`, each side cut to its top 2×k, a 30-day half-life for daily memory, or
 * reciprocal-rank fusion on request. Conversation units (`conversation-units.ts`) are an index
 * detail of the default mode: this mode never returns them, so it ranks turns as it ranks any chunk.
 */
import { sourceRole } from './conversation-units.ts';
import { toFtsQuery } from './fts-query.ts';
import { type ChunkRecord, inScope, type MemoryStore } from './memory-store.ts';
import {
  COWAGENT_SEARCH_DEFAULTS,
  normalizeBm25,
  type SearchHit,
  type SearchOptions,
} from './search-options.ts';
import { decayOf, dot, embedQuery, fallbackHits, nonNegative, scopeOf } from './search-support.ts';

export async function searchCowAgent(
  store: MemoryStore,
  tenant: string,
  query: string,
  options: SearchOptions,
  maxResults: number,
): Promise<SearchHit[]> {
  const C = COWAGENT_SEARCH_DEFAULTS;
  const minScore = nonNegative('minScore', options.minScore ?? C.minScore);
  const vw = nonNegative('vectorWeight', options.vectorWeight ?? C.vectorWeight);
  const kw = nonNegative('keywordWeight', options.keywordWeight ?? C.keywordWeight);
  const decay = decayOf(options, options.halfLifeDays ?? C.halfLifeDays);
  const scope = scopeOf(options);
  const pool = 2 * maxResults;
  const isUnit = (chunk: ChunkRecord) => sourceRole(chunk.source).role === 'unit';
  const merged = new Map<string, SearchHit>();
  const order: string[] = [];
  const ranks = new Map<string, number>();
  const hit = (chunk: ChunkRecord): SearchHit => {
    let h = merged.get(chunk.id);
    if (!h) {
      h = { chunk, score: 0, vectorScore: 0, keywordScore: 0 };
      merged.set(chunk.id, h);
      order.push(chunk.id);
    }
    return h;
  };

  if (options.embedder && vw > 0) {
    const qv = await embedQuery(options.embedder, query);
    if (qv) {
      const index = await store.chunkIndex(tenant, options.embedder.modelId);
      const scored: { chunk: ChunkRecord; sim: number }[] = [];
      for (const [i, chunk] of index.chunks.entries()) {
        const v = index.vectors[i];
        if (!v || v.length !== qv.length || !inScope(chunk, scope) || isUnit(chunk)) continue;
        const sim = dot(qv, v);
        if (sim > 0) scored.push({ chunk, sim });
      }
      scored.sort((a, b) => b.sim - a.sim);
      for (const [i, s] of scored.slice(0, pool).entries()) {
        const h = hit(s.chunk);
        h.vectorScore = s.sim;
        ranks.set(`v:${s.chunk.id}`, i + 1);
      }
    }
  }

  if (kw > 0) {
    const match = toFtsQuery(query);
    // Units take room in the store's top list: fetch more, keep the first `pool` that are not units.
    const hits =
      match === ''
        ? []
        : (await store.keywordSearch(tenant, match, scope, 4 * pool))
            .filter((h) => !isUnit(h.chunk))
            .slice(0, pool);
    for (const [i, k] of hits.entries()) {
      hit(k.chunk).keywordScore = normalizeBm25(k.bm25);
      ranks.set(`k:${k.chunk.id}`, i + 1);
    }
    if (hits.length === 0)
      for (const [i, { chunk, s }] of (await fallbackHits(store, tenant, query, scope, pool, options, C))
        .filter((h) => !isUnit(h.chunk))
        .entries()) {
        hit(chunk).keywordScore = s;
        ranks.set(`k:${chunk.id}`, i + 1);
      }
  }

  const rrf = (options.fusion ?? C.fusion) === 'rrf';
  const rrfK = nonNegative('rrfK', options.rrfK ?? C.rrfK);
  const fuseRanks = (rv: number | undefined, rk: number | undefined) =>
    ((rv ? vw / (rrfK + rv) : 0) + (rk ? kw / (rrfK + rk) : 0)) * ((rrfK + 1) / (vw + kw || 1));
  const out: SearchHit[] = [];
  for (const id of order) {
    const h = merged.get(id)!;
    const combined = rrf
      ? fuseRanks(ranks.get(`v:${id}`), ranks.get(`k:${id}`))
      : vw * h.vectorScore + kw * h.keywordScore;
    h.score = combined * decay(h.chunk);
    if (h.score >= minScore) out.push(h);
  }
  // Array.prototype.sort is stable: ties keep insertion order (vector hits, then keyword-only).
  out.sort((a, b) => b.score - a.score);
  return out.slice(0, maxResults);
}
