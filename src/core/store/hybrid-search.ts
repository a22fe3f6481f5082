/**
 * Hybrid memory retrieval in two modes. `default`: keyword (FTS5 BM25 over stemmed terms, stopwords
 * dropped) and vector (cosine) scores, each normalised over its full candidate list, weighted
 * equally, then each chunk sharing in its neighbours' and its source's best score (the turns around
 * a matching turn of a conversation); decay only on request. `cowagent`: 000/004 §2.2 with the
 * recommended fixes (0.7/0.3, BM25 ranked by `s/(1+s)`, 30-day half-life for daily memory).
 */
import { CtxError } from '../errors.ts';
import { searchCowAgent } from './cowagent-search.ts';
import { toFtsQuery } from './fts-query.ts';
import { inScope, type MemoryStore } from './memory-store.ts';
import { SEARCH_DEFAULTS, type SearchHit, type SearchOptions } from './search-options.ts';
import { decayOf, dot, embedQuery, likeHits, nonNegative, scopeOf } from './search-support.ts';

export * from './search-options.ts';

/**
 * Searches the tenant's memory chunks (see `SearchOptions.mode`). Validates the options
 * (`CtxError('invalid_config')`), embeds the query once, and reads the store's `chunkIndex`.
 */
export async function searchMemory(
  store: MemoryStore,
  tenant: string,
  query: string,
  options: SearchOptions = {},
): Promise<SearchHit[]> {
  const maxResults = options.maxResults ?? SEARCH_DEFAULTS.maxResults;
  if (!Number.isInteger(maxResults) || maxResults < 1)
    throw new CtxError('invalid_config', 'must be a positive integer', { path: 'maxResults' });
  const mode = options.mode ?? 'default';
  if (mode !== 'default' && mode !== 'cowagent')
    throw new CtxError('invalid_config', "must be 'default' or 'cowagent'", { path: 'mode' });
  if (
    options.cjkFallback !== undefined &&
    options.cjkFallback !== 'bigrams' &&
    options.cjkFallback !== 'runs'
  )
    throw new CtxError('invalid_config', 'must be "bigrams" or "runs"', { path: 'cjkFallback' });
  return mode === 'cowagent'
    ? searchCowAgent(store, tenant, query, options, maxResults)
    : searchDefault(store, tenant, query, options, maxResults);
}

async function searchDefault(
  store: MemoryStore,
  tenant: string,
  query: string,
  options: SearchOptions,
  maxResults: number,
): Promise<SearchHit[]> {
  const D = SEARCH_DEFAULTS;
  const minScore = nonNegative('minScore', options.minScore ?? D.minScore);
  let vw = nonNegative('vectorWeight', options.vectorWeight ?? D.vectorWeight);
  const kw = nonNegative('keywordWeight', options.keywordWeight ?? D.keywordWeight);
  const alpha = nonNegative('neighbourWeight', options.neighbourWeight ?? D.neighbourWeight);
  const beta = nonNegative('sourceWeight', options.sourceWeight ?? D.sourceWeight);
  const pool = options.keywordPool ?? D.keywordPool;
  if (!Number.isInteger(pool) || pool < 1)
    throw new CtxError('invalid_config', 'must be a positive integer', { path: 'keywordPool' });
  const decay = decayOf(options, options.halfLifeDays);
  const rrf = (options.fusion ?? D.fusion) === 'rrf';
  const rrfK = nonNegative('rrfK', options.rrfK ?? D.rrfK);
  const scope = scopeOf(options);
  const embedder = options.embedder;
  if (!embedder) vw = 0;
  if (vw + kw === 0) return [];

  const index = await store.chunkIndex(tenant, embedder && vw > 0 ? embedder.modelId : null);
  const n = index.chunks.length;
  const visible = new Uint8Array(n);
  for (let i = 0; i < n; i++) visible[i] = inScope(index.chunks[i]!, scope) ? 1 : 0;

  // Vector side: cosine over every visible chunk with a vector, min-max normalised.
  const vec = new Float64Array(n);
  const vecRaw = new Float64Array(n);
  const vrank = new Int32Array(n);
  if (embedder && vw > 0) {
    const qv = await embedQuery(embedder, query);
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    const has: number[] = [];
    if (qv)
      for (let i = 0; i < n; i++) {
        const v = index.vectors[i];
        if (!visible[i] || !v || v.length !== qv.length) continue;
        const sim = dot(qv, v);
        vecRaw[i] = sim;
        has.push(i);
        if (sim < lo) lo = sim;
        if (sim > hi) hi = sim;
      }
    const span = hi - lo;
    for (const i of has) vec[i] = span > 0 ? (vecRaw[i]! - lo) / span : 1;
    if (rrf) for (const [r, i] of has.sort((a, b) => vecRaw[b]! - vecRaw[a]!).entries()) vrank[i] = r + 1;
    if (has.length === 0) vw = 0;
  }

  // Keyword side: stopwords dropped, stemmed by the store (FTS5 porter), scores over the best match.
  const key = new Float64Array(n);
  const krank = new Int32Array(n);
  if (kw > 0) {
    const match = toFtsQuery(query, { dropStopwords: true });
    let hits: { i: number; s: number }[] = [];
    if (match !== '')
      hits = (await store.keywordRanks(tenant, match, scope, pool)).flatMap((h) => {
        const i = index.byId.get(h.id);
        return i === undefined || !visible[i] ? [] : [{ i, s: Math.max(0, -h.bm25) }];
      });
    if (hits.length === 0)
      hits = (
        await likeHits(
          store,
          tenant,
          query,
          scope,
          pool,
          options.likeScore ?? D.likeScore,
          options.cjkFallback ?? D.cjkFallback,
        )
      ).flatMap((h) => {
        const i = index.byId.get(h.chunk.id);
        return i === undefined || !visible[i] ? [] : [{ i, s: h.s }];
      });
    const top = hits.reduce((m, h) => Math.max(m, h.s), 0);
    hits.sort((a, b) => b.s - a.s);
    for (const [r, h] of hits.entries()) {
      key[h.i] = top > 0 ? h.s / top : 0;
      krank[h.i] = r + 1;
    }
  }

  // Fusion, then context: a chunk shares in its neighbours' and its source's best score.
  const total = vw + kw;
  const fused = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (!visible[i]) continue;
    fused[i] = rrf
      ? ((vrank[i] ? vw / (rrfK + vrank[i]!) : 0) + (krank[i] ? kw / (rrfK + krank[i]!) : 0)) *
        ((rrfK + 1) / total)
      : (vw * vec[i]! + kw * key[i]!) / total;
  }
  const best = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const src = index.chunks[i]!.source;
    if (visible[i] && fused[i]! > (best.get(src) ?? 0)) best.set(src, fused[i]!);
  }
  const scale = 1 + alpha + beta;
  const final = new Float64Array(n);
  const picked: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!visible[i]) continue;
    const p = index.prev[i]!;
    const q = index.next[i]!;
    const around = Math.max(p >= 0 && visible[p] ? fused[p]! : 0, q >= 0 && visible[q] ? fused[q]! : 0);
    const chunk = index.chunks[i]!;
    const score =
      ((fused[i]! + alpha * around + beta * (best.get(chunk.source) ?? 0)) / scale) * decay(chunk);
    if (score > 0 && score >= minScore) {
      final[i] = score;
      picked.push(i);
    }
  }
  // Ties keep the index order (source, then line).
  picked.sort((a, b) => final[b]! - final[a]! || a - b);
  return picked.slice(0, maxResults).map((i) => ({
    chunk: index.chunks[i]!,
    score: final[i]!,
    vectorScore: vecRaw[i]!,
    keywordScore: key[i]!,
  }));
}

/** 000/004's tool output: `Found {n} relevant memories:` and numbered hits with score and snippet. */
export function formatSearchHits(query: string, hits: readonly SearchHit[]): string {
  if (hits.length === 0) return `No memories found for '${query}'.`;
  let out = `Found ${hits.length} relevant memories:\n`;
  for (const [i, h] of hits.entries()) {
    const snippet = h.chunk.text.length > 500 ? `${h.chunk.text.slice(0, 500)}...` : h.chunk.text;
    out += `\n${i + 1}. ${h.chunk.source} (lines ${h.chunk.startLine}-${h.chunk.endLine})\n`;
    out += `   Score: ${h.score.toFixed(3)}\n   Snippet: ${snippet}\n`;
  }
  return out;
}
