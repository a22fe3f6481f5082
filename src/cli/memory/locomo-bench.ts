/**
 * Evidence recall of memory retrieval on LoCoMo: each conversation is written with
 * `indexConversation` (turns `speaker: text`, one source per session dated by it, window, session-span
 * and fact-key units) into a SQLite (FTS5) memory store; every question is searched in each mode,
 * asked the day after the last session; recall@k = share of its evidence turns among the top k
 * turns. The peer, plain Okapi BM25 (stopwords dropped, Porter stemming) over the same turns, runs
 * in the same process. Intervals: 95 % percentile bootstrap over the questions. A latency pass
 * searches one store holding every loaded conversation.
 */
import {
  type ChunkRecord,
  createBm25Index,
  type Embedder,
  embedAll,
  type FactExtractor,
  type IndexedFacts,
  indexConversation,
  indexFacts,
  type MemoryStore,
  type SearchOptions,
  searchMemory,
  toFtsQuery,
  turnIdOf,
  turnText,
} from '../../core/index.ts';
import { createSqliteMemoryStore, openSqlite } from '../../db/sqlite/index.ts';
import { bootstrapInterval, type Interval } from './bootstrap.ts';
import { askedAt, type LocomoConversation, toConversation } from './locomo.ts';

export { locomoDate } from './locomo.ts';

export interface RetrievalMode {
  name: string;
  /** Options for `searchMemory` (`now`, `maxResults`, `minScore` are set by the bench). */
  search?: Omit<SearchOptions, 'now' | 'maxResults' | 'minScore' | 'embedder'>;
  /** Whether the mode gets the embedder. */
  vectors: boolean;
  /** The plain BM25 peer instead of `searchMemory`. */
  peer?: true;
}

/**
 * The default mode as it was before units and query signals: 0.5/0.5, neighbour 0.5, source 0.2,
 * every unit and signal weight 0 (turns with their neighbour/source context only).
 */
export const TURNS_ONLY = {
  vectorWeight: 0.5,
  keywordWeight: 0.5,
  neighbourWeight: 0.5,
  sourceWeight: 0.2,
  windowWeight: 0,
  sessionWeight: 0,
  factWeight: 0,
  speakerWeight: 0,
  timeWeight: 0,
  whenWeight: 0,
  statementWeight: 0,
  listKeywordWeight: 0.5,
  listFactWeight: 0,
  listNeighbourWeight: 0.5,
  listPerSession: 0,
} as const satisfies SearchOptions;

/**
 * `default` (what a user gets without options), `turns` (the default without units and query
 * signals: what the default was before them), `keyword` (the default without an embedder, as the
 * Worker without Workers AI), `vector` (vectors only), `cowagent` (000/004 §2.2, decay off) and
 * `bm25`, the plain Okapi BM25 peer.
 */
export const DEFAULT_MODES: readonly RetrievalMode[] = [
  { name: 'default', vectors: true },
  { name: 'turns', vectors: true, search: TURNS_ONLY },
  { name: 'keyword', vectors: false },
  { name: 'vector', vectors: true, search: { keywordWeight: 0, listKeywordWeight: 0 } },
  { name: 'cowagent', vectors: true, search: { mode: 'cowagent', halfLifeDays: Number.POSITIVE_INFINITY } },
  { name: 'bm25', vectors: false, peer: true },
];

export interface RecallCell {
  at5: number;
  at10: number;
  /** 95 % bootstrap intervals over the row's questions. */
  ci5: Interval;
  ci10: Interval;
}

export interface CategoryRow {
  category: number;
  questions: number;
  /** By mode name. */
  recall: Record<string, RecallCell>;
}

export interface LatencyStats {
  /** Turns in the one store the latency pass searched. */
  turns: number;
  /** Every chunk of that store: turns and the units over them. */
  chunks: number;
  searches: number;
  /** Wall-clock ms (includes waiting for a core on a busy machine). */
  p50: number;
  p95: number;
  p99: number;
  worst: number;
  /** CPU ms of the process per search (the search is synchronous work: what one idle core needs). */
  cpu: { p50: number; p95: number; p99: number; worst: number };
}

/** One scored question: its recall at 5 and 10 by mode. */
export interface QuestionRecall {
  conversation: string;
  category: number;
  recall: Record<string, [number, number]>;
}

export interface MemoryBenchResult {
  embedder: string;
  modes: string[];
  conversations: number;
  turns: number;
  /** Questions left out because none of their evidence ids names a turn. */
  skippedNoEvidence: number;
  rows: CategoryRow[];
  /** Over categories 1–4 (adversarial reported on its own row). */
  overall: CategoryRow;
  /** Search latency in ms (query embedding excluded: query vectors come from the cache), by mode. */
  latency: Record<string, LatencyStats>;
  /** With `facts`: facts written, and sessions whose extraction failed (they have none). */
  facts?: { facts: number; failedSessions: number; firstError?: string };
}

export interface MemoryBenchOptions {
  conversations: readonly LocomoConversation[];
  /** Wrap it in a cache (`cachingEmbedder`): every text is embedded once per run at most. */
  embedder: Embedder;
  /** @default DEFAULT_MODES */
  modes?: readonly RetrievalMode[];
  /** Include category 5 (adversarial) as its own row. @default true */
  adversarial?: boolean;
  /** Searches timed per latency mode (`default`, `keyword`), 0 = no latency pass. @default 300 */
  latencySearches?: number;
  /**
   * Model facts (a summarizer model through `factExtractorFrom`), written after each conversation
   * of the recall pass; the latency pass stores none (it would ask the model again).
   */
  facts?: FactExtractor;
  onProgress?: (done: number, total: number, label: string) => void;
}

/**
 * Writes a LoCoMo conversation with `indexConversation` into a store, under `tenant`; with `facts`,
 * then the model facts of every session (`indexFacts`, awaited: a benchmark is a batch job).
 */
export async function indexLocomo(
  store: MemoryStore,
  conv: LocomoConversation,
  tenant: string,
  embedder: Embedder,
  facts?: FactExtractor,
): Promise<IndexedFacts | undefined> {
  const conversation = toConversation(conv);
  await indexConversation(store, conversation, { tenant, embedder });
  return facts ? indexFacts(store, conversation, facts, { tenant, embedder }) : undefined;
}

/** The turn chunks the BM25 peer ranks (text as indexed, id = the turn's `dia_id`). */
function peerChunks(conv: LocomoConversation): ChunkRecord[] {
  return conv.turns.map((t, i) => ({
    tenant: conv.id,
    id: t.diaId,
    project: '',
    userId: '',
    source: `session_${t.session}`,
    startLine: i + 1,
    endLine: i + 1,
    text: turnText(t),
    date: null,
    embedding: null,
    model: null,
  }));
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export function benchSearchOptions(mode: RetrievalMode, embedder: Embedder, now: number): SearchOptions {
  return { now, minScore: 0, maxResults: 10, ...(mode.vectors ? { embedder } : {}), ...mode.search };
}

/** Every question with known evidence, scored in every mode. */
export async function scoreQuestions(
  options: MemoryBenchOptions,
): Promise<{ scored: QuestionRecall[]; skipped: number; facts?: MemoryBenchResult['facts'] }> {
  const { embedder } = options;
  const modes = options.modes ?? DEFAULT_MODES;
  const total = options.conversations.reduce((n, c) => n + c.questions.length, 0);
  const scored: QuestionRecall[] = [];
  let skipped = 0;
  let done = 0;
  const facts: NonNullable<MemoryBenchResult['facts']> = { facts: 0, failedSessions: 0 };
  for (const conv of options.conversations) {
    const handle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      const written = await indexLocomo(store, conv, conv.id, embedder, options.facts);
      if (written) {
        facts.facts += written.facts;
        facts.failedSessions += written.failed.length;
        const failure = written.failed[0];
        if (failure && facts.firstError === undefined)
          facts.firstError = `${failure.session}: ${failure.error}`.slice(0, 300);
      }
      const peer = createBm25Index(peerChunks(conv));
      const known = new Set(conv.turns.map((t) => t.diaId));
      const now = askedAt(conv);
      // Query vectors once per question (and persisted with the cache).
      await embedAll(
        embedder,
        conv.questions.map((q) => q.question),
      );
      for (const q of conv.questions) {
        options.onProgress?.(++done, total, conv.id);
        if (q.category === 5 && options.adversarial === false) continue;
        const evidence = [...new Set(q.evidence.filter((e) => known.has(e)))];
        if (evidence.length === 0) {
          skipped++;
          continue;
        }
        const recall: Record<string, [number, number]> = {};
        for (const mode of modes) {
          const ids = mode.peer
            ? peer
                .search(toFtsQuery(q.question, { dropStopwords: true }).replaceAll('"', ''), 10)
                .map((h) => h.chunk.id)
            : (await searchMemory(store, conv.id, q.question, benchSearchOptions(mode, embedder, now))).map(
                (h) => turnIdOf(h.chunk) ?? h.chunk.id,
              );
          const found = (k: number) =>
            evidence.filter((e) => ids.slice(0, k).includes(e)).length / evidence.length;
          recall[mode.name] = [found(5), found(10)];
        }
        scored.push({ conversation: conv.id, category: q.category, recall });
      }
    } finally {
      handle.close();
    }
  }
  return options.facts ? { scored, skipped, facts } : { scored, skipped };
}

/** A row of the table: mean recall at 5 and 10 per mode with their bootstrap intervals. */
export function recallRow(
  category: number,
  questions: readonly QuestionRecall[],
  modes: readonly string[],
): CategoryRow {
  const recall: Record<string, RecallCell> = {};
  for (const m of modes) {
    const at = (k: 0 | 1) => questions.map((q) => q.recall[m]![k]);
    const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
    recall[m] = {
      at5: mean(at(0)),
      at10: mean(at(1)),
      ci5: bootstrapInterval(at(0), 1000, 5 + category),
      ci10: bootstrapInterval(at(1), 1000, 10 + category),
    };
  }
  return { category, questions: questions.length, recall };
}

async function measureLatency(
  options: MemoryBenchOptions,
  searches: number,
): Promise<Record<string, LatencyStats>> {
  const latency: Record<string, LatencyStats> = {};
  const modes = (options.modes ?? DEFAULT_MODES).filter((m) => m.name === 'default' || m.name === 'keyword');
  const handle = openSqlite({ path: ':memory:' });
  try {
    const store = createSqliteMemoryStore(handle);
    for (const conv of options.conversations) await indexLocomo(store, conv, 'all', options.embedder);
    const chunks = (await store.chunkIndex('all', null)).chunks.length;
    const turns = options.conversations.reduce((n, c) => n + c.turns.length, 0);
    const questions = options.conversations.flatMap((c) =>
      c.questions.map((q) => ({ q: q.question, now: askedAt(c) })),
    );
    const count = Math.min(searches, questions.length);
    for (const mode of modes) {
      await searchMemory(
        store,
        'all',
        questions[0]?.q ?? 'warm up',
        benchSearchOptions(mode, options.embedder, 0),
      );
      const times: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < count; i++) {
        const { q, now } = questions[Math.floor((i * questions.length) / count)]!;
        const opts = benchSearchOptions(mode, options.embedder, now);
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await searchMemory(store, 'all', q, opts);
        times.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
      }
      times.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      const stats = (xs: number[]) => ({
        p50: percentile(xs, 50),
        p95: percentile(xs, 95),
        p99: percentile(xs, 99),
        worst: xs.at(-1) ?? 0,
      });
      latency[mode.name] = { turns, chunks, searches: times.length, ...stats(times), cpu: stats(cpu) };
    }
  } finally {
    handle.close();
  }
  return latency;
}

export async function runMemoryBench(options: MemoryBenchOptions): Promise<MemoryBenchResult> {
  const modes = (options.modes ?? DEFAULT_MODES).map((m) => m.name);
  const { scored, skipped, facts } = await scoreQuestions(options);
  const categories = [...new Set(scored.map((q) => q.category))].sort((a, b) => a - b);
  const rows = categories.map((c) =>
    recallRow(
      c,
      scored.filter((q) => q.category === c),
      modes,
    ),
  );
  const overall = recallRow(
    0,
    scored.filter((q) => q.category !== 5),
    modes,
  );
  const searches = options.latencySearches ?? 300;
  const latency = searches > 0 && scored.length > 0 ? await measureLatency(options, searches) : {};
  return {
    embedder: options.embedder.modelId,
    modes,
    conversations: options.conversations.length,
    turns: options.conversations.reduce((n, c) => n + c.turns.length, 0),
    skippedNoEvidence: skipped,
    rows,
    overall,
    latency,
    ...(facts ? { facts } : {}),
  };
}
