/**
 * Hybrid memory retrieval in two modes. `default`: keyword (FTS5 BM25 over stemmed terms, stopwords
 * dropped) and vector (cosine) scores, each normalised over its full candidate list, weighted
 * equally; a conversation turn also takes its window, session-span and fact-key units' scores; each
 * chunk then shares in its neighbours' and its source's best score; the speakers and times the query
 * names and a "when" add their weight (`search-features.ts`, `fuse-features.ts`); decay only on request. `cowagent`: 000/004 §2.2 with the
 * recommended fixes (0.7/0.3, BM25 ranked by `s/(1+s)`, 30-day half-life for daily memory).
 */
import { CtxError } from '../errors.ts';
import { searchCowAgent } from './cowagent-search.ts';
import { type FusionWeights, fuseFeatures } from './fuse-features.ts';
import type { MemoryStore } from './memory-store.ts';
import { searchFeatures } from './search-features.ts';
import { SEARCH_DEFAULTS, type SearchHit, type SearchOptions } from './search-options.ts';
import { decayOf, nonNegative } from './search-support.ts';

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

/** The default mode's weights from the options (validated) and `SEARCH_DEFAULTS`. */
export function fusionWeights(options: SearchOptions): FusionWeights {
  const D = SEARCH_DEFAULTS;
  const weight = (name: keyof typeof D & keyof SearchOptions) =>
    nonNegative(name, (options[name] as number | undefined) ?? (D[name] as number));
  return {
    vector: weight('vectorWeight'),
    keyword: weight('keywordWeight'),
    rrf: (options.fusion ?? D.fusion) === 'rrf',
    rrfK: weight('rrfK'),
    neighbour: weight('neighbourWeight'),
    source: weight('sourceWeight'),
    window: weight('windowWeight'),
    session: weight('sessionWeight'),
    facts: weight('factWeight'),
    speaker: weight('speakerWeight'),
    time: weight('timeWeight'),
    when: weight('whenWeight'),
    statement: share('statementWeight', options.statementWeight ?? D.statementWeight),
    listKeyword: weight('listKeywordWeight'),
    listFacts: weight('listFactWeight'),
    listNeighbour: weight('listNeighbourWeight'),
    listPerSession: perSession(options.listPerSession ?? D.listPerSession),
  };
}

function share(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0 || v > 1)
    throw new CtxError('invalid_config', 'must be a number from 0 to 1', { path: name });
  return v;
}

function perSession(v: number): number {
  if (!Number.isInteger(v) || v < 0)
    throw new CtxError('invalid_config', 'must be an integer ≥ 0', { path: 'listPerSession' });
  return v;
}

async function searchDefault(
  store: MemoryStore,
  tenant: string,
  query: string,
  options: SearchOptions,
  maxResults: number,
): Promise<SearchHit[]> {
  const minScore = nonNegative('minScore', options.minScore ?? SEARCH_DEFAULTS.minScore);
  const weights = fusionWeights(options);
  const decay = decayOf(options, options.halfLifeDays);
  if (weights.keyword + (options.embedder ? weights.vector : 0) === 0) return [];
  const features = await searchFeatures(store, tenant, query, options, weights.vector > 0);
  return fuseFeatures(features, weights, maxResults, minScore, decay);
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
