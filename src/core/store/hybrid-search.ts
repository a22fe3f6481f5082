/**
 * Hybrid retrieval (000/004 §2.2, with the recommended fixes): FTS5 BM25 normalised so that
 * scores rank, cosine similarity, a weighted combination, a 30-day half-life for daily memory,
 * and a minimum score where `0` means 0.
 */
import { CtxError } from '../errors.ts';
import { cosine, type Embedder } from './embedder.ts';
import { cjkBigrams, cowagentCjkRuns, hasCjk, hasCowagentCjk, toFtsQuery } from './fts-query.ts';
import type { ChunkRecord, MemoryScope, MemoryStore } from './memory-store.ts';

export interface SearchOptions extends MemoryScope {
  /** @default 10 */
  maxResults?: number;
  /** Scores below are dropped; `0` keeps everything. @default 0.1 */
  minScore?: number;
  /** @default 0.7 */
  vectorWeight?: number;
  /** @default 0.3 */
  keywordWeight?: number;
  /** Half-life of daily memory (chunks with a `date`), in days. @default 30 */
  halfLifeDays?: number;
  /** Ms since epoch, for decay. */
  now: number;
  /** Without one, only the keyword side runs. */
  embedder?: Embedder;
  /**
   * How the two sides combine: `weighted` = `vectorWeight × cosine + keywordWeight × bm25Score`
   * (000/004); `rrf` = weighted reciprocal-rank fusion `Σ w / (rrfK + rank)`, scaled so that rank 1
   * on both sides scores 1. @default 'weighted'
   */
  fusion?: 'weighted' | 'rrf';
  /** @default 60 */
  rrfK?: number;
  /** Keyword score of a CJK LIKE-fallback hit containing every bigram of the query. @default 0.5 */
  likeScore?: number;
  /**
   * The LIKE fallback when FTS finds nothing for a CJK query. `bigrams`: overlapping bigrams of every
   * CJK run, scored by the share found (`likeScore × found / all`, a paraphrase still matches);
   * `runs` (000/004 §2.2, the `cowagent` preset): each run of ≥ 2 ideographs whole, OR-ed, every hit
   * scoring `likeScore`, in store order; a lone ideograph finds nothing. @default 'bigrams'
   */
  cjkFallback?: 'bigrams' | 'runs';
}

export interface SearchHit {
  chunk: ChunkRecord;
  score: number;
  vectorScore: number;
  keywordScore: number;
}

export const SEARCH_DEFAULTS = {
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

export async function searchMemory(
  store: MemoryStore,
  tenant: string,
  query: string,
  options: SearchOptions,
): Promise<SearchHit[]> {
  const maxResults = options.maxResults ?? SEARCH_DEFAULTS.maxResults;
  const minScore = options.minScore ?? SEARCH_DEFAULTS.minScore;
  const vw = options.vectorWeight ?? SEARCH_DEFAULTS.vectorWeight;
  const kw = options.keywordWeight ?? SEARCH_DEFAULTS.keywordWeight;
  if (!Number.isInteger(maxResults) || maxResults < 1)
    throw new CtxError('invalid_config', 'must be a positive integer', { path: 'maxResults' });
  for (const [name, v] of [
    ['minScore', minScore],
    ['vectorWeight', vw],
    ['keywordWeight', kw],
  ] as const)
    if (!Number.isFinite(v) || v < 0)
      throw new CtxError('invalid_config', 'must be a finite number ≥ 0', { path: name });
  if (
    options.cjkFallback !== undefined &&
    options.cjkFallback !== 'bigrams' &&
    options.cjkFallback !== 'runs'
  )
    throw new CtxError('invalid_config', 'must be "bigrams" or "runs"', { path: 'cjkFallback' });
  const scope: MemoryScope = {};
  if (options.project !== undefined) scope.project = options.project;
  if (options.userId !== undefined) scope.userId = options.userId;
  if (options.includeGlobal !== undefined) scope.includeGlobal = options.includeGlobal;
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
    const embedder = options.embedder;
    const [qv] = await embedder.embed([query]);
    if (qv) {
      const candidates = await store.vectorChunks(tenant, embedder.modelId, scope);
      const scored: { chunk: ChunkRecord; sim: number }[] = [];
      for (const chunk of candidates) {
        if (!chunk.embedding || chunk.embedding.length !== qv.length) continue;
        const sim = cosine(qv, chunk.embedding);
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
    const runs = (options.cjkFallback ?? SEARCH_DEFAULTS.cjkFallback) === 'runs';
    if (hits.length === 0 && runs && hasCowagentCjk(query)) {
      const terms = cowagentCjkRuns(query);
      const like = terms.length === 0 ? [] : await store.substringSearch(tenant, terms, scope, pool);
      const score = options.likeScore ?? SEARCH_DEFAULTS.likeScore;
      for (const [i, chunk] of like.entries()) {
        hit(chunk).keywordScore = score;
        ranks.set(`k:${chunk.id}`, i + 1);
      }
    } else if (hits.length === 0 && !runs && hasCjk(query)) {
      const grams = cjkBigrams(query);
      const like = grams.length === 0 ? [] : await store.substringSearch(tenant, grams, scope, pool);
      const base = options.likeScore ?? SEARCH_DEFAULTS.likeScore;
      // No rank from LIKE: the share of the query's bigrams found in the chunk, times `likeScore`.
      const scoredLike = like
        .map((chunk) => ({
          chunk,
          s: (base * grams.filter((g) => chunk.text.includes(g)).length) / grams.length,
        }))
        .sort((a, b) => b.s - a.s);
      for (const [i, { chunk, s }] of scoredLike.entries()) {
        hit(chunk).keywordScore = s;
        ranks.set(`k:${chunk.id}`, i + 1);
      }
    }
  }

  const halfLife = options.halfLifeDays ?? SEARCH_DEFAULTS.halfLifeDays;
  const rrf = (options.fusion ?? SEARCH_DEFAULTS.fusion) === 'rrf';
  const rrfK = options.rrfK ?? SEARCH_DEFAULTS.rrfK;
  const fuseRanks = (rv: number | undefined, rk: number | undefined) =>
    ((rv ? vw / (rrfK + rv) : 0) + (rk ? kw / (rrfK + rk) : 0)) * ((rrfK + 1) / (vw + kw || 1));
  const out: SearchHit[] = [];
  for (const id of order) {
    const h = merged.get(id)!;
    const combined = rrf
      ? fuseRanks(ranks.get(`v:${id}`), ranks.get(`k:${id}`))
      : vw * h.vectorScore + kw * h.keywordScore;
    h.score = combined * temporalDecay(h.chunk.date, options.now, halfLife);
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
