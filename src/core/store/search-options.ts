/** Memory search: options, hits, the two modes' defaults and the score helpers both use. */
import type { UnitKind } from './conversation-units.ts';
import type { Embedder } from './embedder.ts';
import type { ChunkRecord, MemoryScope } from './memory-store.ts';

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
  /**
   * Default mode, conversation turns (`indexConversation`): weight of the best window unit covering
   * the turn (the turn with its neighbours), beside the turn's own score (weight 1). @default 0.5
   */
  windowWeight?: number;
  /** Default mode: weight of the turn's session span. @default 0.25 */
  sessionWeight?: number;
  /** Default mode: weight of the turn's best fact key or extracted fact. @default 0.5 */
  factWeight?: number;
  /**
   * Default mode, the speaker query: weight added to the turns of the speakers the query names
   * (when it names some but not all of the index's speakers). @default 0.25
   */
  speakerWeight?: number;
  /**
   * Default mode, time-aware expansion: weight added to dated chunks (conversation turns, daily
   * memory) whose date, or a time expression of their text resolved against it, falls in a time the
   * query names (`in March 2023`, `on 7 July, 2023`, `the week before …`; relative ones against
   * `now` when given). @default 0.25
   */
  timeWeight?: number;
  /** Default mode: weight added to dated chunks that hold a time expression when the query asks "when". @default 0.1 */
  whenWeight?: number;
  /**
   * Default mode, the statement query: share of the vector side given to the query restated as an
   * indexed turn (`statementQuery`: `What activities does Melanie partake in?` → `Melanie:
   * activities partake in`), embedded with the query in one call; 0 embeds the query alone. Weighted
   * fusion only. @default 0.75
   */
  statementWeight?: number;
  /**
   * Default mode, a query that asks for several things (`asksForSeveral`: `what activities does …`,
   * `which cities has …`, `how many times …`): keyword, fact and neighbour weights in place of
   * `keywordWeight`, `factWeight` and `neighbourWeight` (unset: the same). @default 0.25, 3, 0.25
   */
  listKeywordWeight?: number;
  listFactWeight?: number;
  listNeighbourWeight?: number;
  /**
   * Default mode, a query that asks for several things: at most this many hits of one source
   * (a session of a conversation) before the hits of other sources; 0 = no cap. @default 4
   */
  listPerSession?: number;
}

/** The unit that added most to a conversation turn's score (its provenance runs the other way: the unit covers the turn). */
export interface UnitVia {
  kind: UnitKind;
  /** The unit chunk's id. */
  id: string;
  /** Its own fused score (0–1), before its weight. */
  score: number;
}

export interface SearchHit {
  /** The chunk; `embedding` is not loaded (null). */
  chunk: ChunkRecord;
  score: number;
  /** Default mode: cosine similarity; cowagent: the same. */
  vectorScore: number;
  /** Default mode: BM25 over the best match (0–1); cowagent: `s / (1 + s)`. */
  keywordScore: number;
  /** Default mode, conversation turns: the unit that added most to the score. */
  via?: UnitVia;
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
  vectorWeight: 0.75,
  keywordWeight: 0.5,
  likeScore: 0.5,
  fusion: 'weighted',
  rrfK: 60,
  neighbourWeight: 0.5,
  sourceWeight: 0.4,
  keywordPool: 1000,
  cjkFallback: 'bigrams',
  windowWeight: 1,
  sessionWeight: 0,
  factWeight: 1,
  speakerWeight: 0.2,
  timeWeight: 0.2,
  whenWeight: 0.2,
  statementWeight: 0.75,
  listKeywordWeight: 0.25,
  listFactWeight: 3,
  listNeighbourWeight: 0.25,
  listPerSession: 4,
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
