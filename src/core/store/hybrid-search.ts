/**
 * Hybrid memory retrieval in two modes. `default`: keyword (FTS5 BM25 over stemmed terms, stopwords
 * dropped) and vector (cosine) scores, each normalised over its full candidate list, weighted
 * equally, then each chunk sharing in its neighbours' and its source's best score (the turns around
 * a matching turn of a conversation); decay only on request. `cowagent`: 000/004 §2.2 with the
 * recommended fixes (0.7/0.3, BM25 ranked by `s/(1+s)`, 30-day half-life for daily memory).
 */
import { CtxError } from '../errors.ts';
import type { Embedder } from './embedder.ts';
import { cjkBigrams, cowagentCjkRuns, hasCjk, hasCowagentCjk, toFtsQuery } from './fts-query.ts';
import { type ChunkRecord, inScope, type MemoryScope, type MemoryStore } from './memory-store.ts';

export type SearchMode = 'default' | 'cowagent';

export interface SearchOptions extends MemoryScope {
  /**
   * `default`: stopwords dropped, Porter stemming, both sides normalised over their full candidate
   * lists and weighted equally, neighbouring chunks of a source sharing score, no decay unless
   * `halfLifeDays` is given. `cowagent`: 000/004 §2.2 as the seed fixes it (0.7 vector / 0.3
   * keyword, each side cut to 2 × maxResults, `s / (1 + s)` keyword scores, 30-day decay of daily
   * memory). @default 'default'
   */
  mode?: SearchMode;
  /** @default 10 */
  maxResults?: number;
  /** Scores below are dropped; `0` keeps everything. @default 0.1 (cowagent), 0.05 (default) */
  minScore?: number;
  /** @default 0.7 (cowagent), 0.5 (default) */
  vectorWeight?: number;
  /** @default 0.3 (cowagent), 0.5 (default) */
  keywordWeight?: number;
  /**
   * Half-life of daily memory (chunks with a `date`), in days: "recent first". @default 30
   * (cowagent), none (default: old memories are not penalised)
   */
  halfLifeDays?: number;
  /** Ms since epoch, for decay; required when decay applies. */
  now?: number;
  /** Without one, only the keyword side runs (and carries the whole score). */
  embedder?: Embedder;
  /**
   * How the two sides combine: `weighted` = a weighted sum of the sides' scores; `rrf` = weighted
   * reciprocal-rank fusion `Σ w / (rrfK + rank)`, scaled so that rank 1 on both sides scores 1.
   * @default 'weighted'
   */
  fusion?: 'weighted' | 'rrf';
  /** @default 60 */
  rrfK?: number;
  /** Keyword score of a CJK LIKE-fallback hit containing every bigram of the query. @default 0.5 */
  likeScore?: number;
  /**
   * Default mode: share of the better of its two neighbours' scores (previous / next chunk of the
   * same source, e.g. the turns around a turn of a conversation) a chunk adds to its own. @default 0.5
   */
  neighbourWeight?: number;
  /** Default mode: share of the best score within its source a chunk adds to its own. @default 0.2 */
  sourceWeight?: number;
  /** Default mode: how many keyword matches are fetched and normalised. @default 1000 */
  keywordPool?: number;
  /**
   * The LIKE fallback when FTS finds nothing for a CJK query. `bigrams`: overlapping bigrams of every
   * CJK run, scored by the share found (`likeScore × found / all`, a paraphrase still matches);
   * `runs` (000/004 §2.2, the `cowagent` preset): each run of ≥ 2 ideographs whole, OR-ed, every hit
   * scoring `likeScore`, in store order; a lone ideograph finds nothing. @default 'bigrams'
   */
  cjkFallback?: 'bigrams' | 'runs';
}

export interface SearchHit {
  /** The chunk; `embedding` is not loaded (null). */
  chunk: ChunkRecord;
  score: number;
  /** Default mode: cosine similarity; cowagent: the same. */
  vectorScore: number;
  /** Default mode: BM25 over the best match (0–1); cowagent: `s / (1 + s)`. */
  keywordScore: number;
}

/** CowAgent's scoring (000/004 §2.2). */
export const COWAGENT_SEARCH_DEFAULTS = {
  maxResults: 10,
  minScore: 0.1,
  vectorWeight: 0.7,
  keywordWeight: 0.3,
  halfLifeDays: 30,
  likeScore: 0.5,
  fusion: 'weighted',
  rrfK: 60,
  cjkFallback: 'bigrams',
} as const;

/** The default mode's parameters, tuned on the open half of LoCoMo (docs/memory.md). */
export const SEARCH_DEFAULTS = {
  maxResults: 10,
  minScore: 0.05,
  vectorWeight: 0.5,
  keywordWeight: 0.5,
  likeScore: 0.5,
  fusion: 'weighted',
  rrfK: 60,
  neighbourWeight: 0.5,
  sourceWeight: 0.2,
  keywordPool: 1000,
  cjkFallback: 'bigrams',
} as const;

/**
 * Maps an FTS5 `bm25()` value (≤ 0, lower = better) to `[0, 1)`: `s / (1 + s)` with `s = −bm25`.
 * Monotonic, so a better match always scores higher, independent of the other hits (unlike
 * min-max), and no hit is flattened to 1.0 (the upstream flaw).
 */
export function normalizeBm25(bm25: number): number {
  const s = Math.max(0, -bm25);
  return s / (1 + s);
}

const DAY = 86_400_000;

/** `exp(−ln2/halfLife × ageDays)` for a `YYYY-MM-DD` date; whole days; future or today → 1. */
export function temporalDecay(date: string | null, now: number, halfLifeDays = 30): number {
  if (date === null) return 1;
  const t = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(t)) return 1;
  const age = Math.floor((now - t) / DAY);
  return age <= 0 ? 1 : Math.exp((-Math.LN2 / halfLifeDays) * age);
}

/** `YYYY-MM-DD` of a daily memory path (`…/2026-01-31.md`), else null. */
export function dailyDate(path: string): string | null {
  const m = /(\d{4}-\d{2}-\d{2})\.md$/.exec(path);
  return m ? m[1]! : null;
}

function nonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0)
    throw new CtxError('invalid_config', 'must be a finite number ≥ 0', { path: name });
  return v;
}

function scopeOf(options: SearchOptions): MemoryScope {
  const scope: MemoryScope = {};
  if (options.project !== undefined) scope.project = options.project;
  if (options.userId !== undefined) scope.userId = options.userId;
  if (options.includeGlobal !== undefined) scope.includeGlobal = options.includeGlobal;
  return scope;
}

async function embedQuery(embedder: Embedder, query: string): Promise<Float32Array | null> {
  const [raw] = await embedder.embed([query]);
  if (!raw || raw.length === 0) return null;
  const v = Float32Array.from(raw);
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  if (norm === 0) return null;
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const n = a.length - (a.length % 4);
  let i = 0;
  for (; i < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < a.length; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

/**
 * The CJK LIKE fallback (see `SearchOptions.cjkFallback`): `bigrams` scores the share of the
 * query's bigrams found in each chunk, times `likeScore`; `runs` gives every chunk containing a
 * whole run `likeScore`, in store order. Nothing when the query has no CJK of the chosen kind.
 */
async function likeHits(
  store: MemoryStore,
  tenant: string,
  query: string,
  scope: MemoryScope,
  limit: number,
  base: number,
  fallback: 'bigrams' | 'runs',
): Promise<{ chunk: ChunkRecord; s: number }[]> {
  if (fallback === 'runs') {
    if (!hasCowagentCjk(query)) return [];
    const terms = cowagentCjkRuns(query);
    const like = terms.length === 0 ? [] : await store.substringSearch(tenant, terms, scope, limit);
    return like.map((chunk) => ({ chunk, s: base }));
  }
  if (!hasCjk(query)) return [];
  const grams = cjkBigrams(query);
  const like = grams.length === 0 ? [] : await store.substringSearch(tenant, grams, scope, limit);
  return like
    .map((chunk) => ({
      chunk,
      s: (base * grams.filter((g) => chunk.text.includes(g)).length) / grams.length,
    }))
    .sort((a, b) => b.s - a.s);
}

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

function decayOf(options: SearchOptions, halfLife: number | undefined): (chunk: ChunkRecord) => number {
  if (halfLife === undefined || halfLife === Number.POSITIVE_INFINITY) return () => 1;
  if (!(halfLife > 0)) throw new CtxError('invalid_config', 'must be > 0', { path: 'halfLifeDays' });
  const now = options.now;
  if (now === undefined || !Number.isFinite(now))
    throw new CtxError('invalid_config', 'is required (ms since epoch) when decay applies', { path: 'now' });
  return (chunk) => temporalDecay(chunk.date, now, halfLife);
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

async function searchCowAgent(
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
        if (!v || v.length !== qv.length || !inScope(chunk, scope)) continue;
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
    const hits = match === '' ? [] : await store.keywordSearch(tenant, match, scope, pool);
    for (const [i, k] of hits.entries()) {
      hit(k.chunk).keywordScore = normalizeBm25(k.bm25);
      ranks.set(`k:${k.chunk.id}`, i + 1);
    }
    if (hits.length === 0)
      for (const [i, { chunk, s }] of (
        await likeHits(
          store,
          tenant,
          query,
          scope,
          pool,
          options.likeScore ?? C.likeScore,
          options.cjkFallback ?? C.cjkFallback,
        )
      ).entries()) {
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
