/**
 * What both memory search modes share: option checks, the query vector, the dot product, the CJK
 * LIKE fallback and decay.
 */
import { CtxError } from '../errors.ts';
import type { Embedder } from './embedder.ts';
import { cjkBigrams, cowagentCjkRuns, hasCjk, hasCowagentCjk } from './fts-query.ts';
import type { ChunkRecord, MemoryScope, MemoryStore } from './memory-store.ts';
import { type SearchOptions, temporalDecay } from './search-options.ts';

export function nonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0)
    throw new CtxError('invalid_config', 'must be a finite number ≥ 0', { path: name });
  return v;
}

export function scopeOf(options: SearchOptions): MemoryScope {
  const scope: MemoryScope = {};
  if (options.project !== undefined) scope.project = options.project;
  if (options.userId !== undefined) scope.userId = options.userId;
  if (options.includeGlobal !== undefined) scope.includeGlobal = options.includeGlobal;
  return scope;
}

export async function embedQuery(embedder: Embedder, query: string): Promise<Float32Array | null> {
  return (await embedQueries(embedder, [query]))[0] ?? null;
}

/** The texts' vectors, unit length, in one call (null for an empty or zero vector). */
export async function embedQueries(
  embedder: Embedder,
  texts: readonly string[],
): Promise<(Float32Array | null)[]> {
  const raws = await embedder.embed([...texts]);
  return texts.map((_, k) => {
    const raw = raws[k];
    if (!raw || raw.length === 0) return null;
    const v = Float32Array.from(raw);
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
    if (norm === 0) return null;
    norm = Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  });
}

export function dot(a: Float32Array, b: Float32Array): number {
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
export async function likeHits(
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

export function decayOf(
  options: SearchOptions,
  halfLife: number | undefined,
): (chunk: ChunkRecord) => number {
  if (halfLife === undefined || halfLife === Number.POSITIVE_INFINITY) return () => 1;
  if (!(halfLife > 0)) throw new CtxError('invalid_config', 'must be > 0', { path: 'halfLifeDays' });
  const now = options.now;
  if (now === undefined || !Number.isFinite(now))
    throw new CtxError('invalid_config', 'is required (ms since epoch) when decay applies', { path: 'now' });
  return (chunk) => temporalDecay(chunk.date, now, halfLife);
}

/** `likeHits` with the search's own `likeScore` and `cjkFallback`, or the mode's defaults. */
export function fallbackHits(
  store: MemoryStore,
  tenant: string,
  query: string,
  scope: MemoryScope,
  pool: number,
  options: SearchOptions,
  defaults: { likeScore: number; cjkFallback: 'bigrams' | 'runs' },
): Promise<{ chunk: ChunkRecord; s: number }[]> {
  return likeHits(
    store,
    tenant,
    query,
    scope,
    pool,
    options.likeScore ?? defaults.likeScore,
    options.cjkFallback ?? defaults.cjkFallback,
  );
}
