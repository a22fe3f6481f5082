/**
 * Evidence recall of memory retrieval on LoCoMo: each conversation's turns are indexed as chunks
 * (one per `dia_id`, text `speaker: text`, one source per session) in a SQLite (FTS5) memory store;
 * every question is searched in each mode; recall@k = share of its evidence turns in the top k.
 * The peer, plain Okapi BM25 (stopwords dropped, Porter stemming) over the same turns, runs in the
 * same process. A latency pass searches one store holding every loaded turn.
 */
import {
  type ChunkRecord,
  createBm25Index,
  type Embedder,
  embedAll,
  type MemoryStore,
  type SearchOptions,
  searchMemory,
  toFtsQuery,
} from '../../core/index.ts';
import { createSqliteMemoryStore, openSqlite } from '../../db/sqlite/index.ts';
import type { LocomoConversation } from './locomo.ts';

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
 * `default` (what a user gets without options), `keyword` (the default without an embedder, as the
 * Worker without Workers AI), `vector` (vectors only), `cowagent` (000/004 §2.2, decay off: LoCoMo
 * has no "now"), and `bm25`, the plain Okapi BM25 peer.
 */
export const DEFAULT_MODES: readonly RetrievalMode[] = [
  { name: 'default', vectors: true },
  { name: 'keyword', vectors: false },
  { name: 'vector', vectors: true, search: { keywordWeight: 0 } },
  { name: 'cowagent', vectors: true, search: { mode: 'cowagent', halfLifeDays: Number.POSITIVE_INFINITY } },
  { name: 'bm25', vectors: false, peer: true },
];

export interface RecallCell {
  at5: number;
  at10: number;
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
  searches: number;
  /** Wall-clock ms (includes waiting for a core on a busy machine). */
  p50: number;
  p95: number;
  p99: number;
  worst: number;
  /** CPU ms of the process per search (the search is synchronous work: what one idle core needs). */
  cpu: { p50: number; p95: number; p99: number; worst: number };
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
  onProgress?: (done: number, total: number, label: string) => void;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** `1:56 pm on 8 May, 2023` → `2023-05-08`; null when unreadable. */
export function locomoDate(text: string): string | null {
  const m = /(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/.exec(text);
  const month = m ? MONTHS.indexOf(m[2]!.toLowerCase()) : -1;
  if (!m || month < 0) return null;
  return `${m[3]}-${String(month + 1).padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
}

/** The chunks of a conversation: one per turn, one source per session, the date in its own field. */
export function conversationChunks(
  conv: LocomoConversation,
  tenant: string,
  vectors: readonly (number[] | null)[],
  model: string | null,
): ChunkRecord[] {
  return conv.turns.map((t, i) => ({
    tenant,
    id: `${conv.id}/${t.diaId}`,
    project: '',
    userId: '',
    source: `${conv.id}/session_${t.session}`,
    startLine: i + 1,
    endLine: i + 1,
    text: `${t.speaker}: ${t.text}`,
    date: locomoDate(t.date),
    embedding: vectors[i] ?? null,
    model: vectors[i] ? model : null,
  }));
}

async function indexChunks(
  store: MemoryStore,
  tenant: string,
  chunks: readonly ChunkRecord[],
): Promise<void> {
  const bySource = new Map<string, ChunkRecord[]>();
  for (const c of chunks) bySource.set(c.source, [...(bySource.get(c.source) ?? []), c]);
  for (const [source, list] of bySource) await store.replaceChunks(tenant, source, list);
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function runMemoryBench(options: MemoryBenchOptions): Promise<MemoryBenchResult> {
  const embedder = options.embedder;
  const modes = options.modes ?? DEFAULT_MODES;
  const zero = () =>
    Object.fromEntries(modes.map((m) => [m.name, { at5: 0, at10: 0 }])) as Record<string, RecallCell>;
  const sums = new Map<number, { n: number; r: Record<string, RecallCell> }>();
  let skipped = 0;
  let turns = 0;
  const total = options.conversations.reduce((n, c) => n + c.questions.length, 0);
  let done = 0;
  const allChunks: ChunkRecord[] = [];
  const searchOptions = (mode: RetrievalMode): SearchOptions => ({
    now: 0,
    minScore: 0,
    maxResults: 10,
    ...(mode.vectors ? { embedder } : {}),
    ...mode.search,
  });
  for (const conv of options.conversations) {
    const handle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      const vectors = await embedAll(
        embedder,
        conv.turns.map((t) => `${t.speaker}: ${t.text}`),
      );
      const chunks = conversationChunks(conv, conv.id, vectors, embedder.modelId);
      allChunks.push(...chunks);
      await indexChunks(store, conv.id, chunks);
      const peer = createBm25Index(chunks);
      turns += conv.turns.length;
      const known = new Set(conv.turns.map((t) => t.diaId));
      // Query vectors once per question (and persisted with the cache).
      await embedAll(
        embedder,
        conv.questions.map((q) => q.question),
      );
      for (const q of conv.questions) {
        done++;
        options.onProgress?.(done, total, conv.id);
        if (q.category === 5 && options.adversarial === false) continue;
        const evidence = [...new Set(q.evidence.filter((e) => known.has(e)))].map((e) => `${conv.id}/${e}`);
        if (evidence.length === 0) {
          skipped++;
          continue;
        }
        const row = sums.get(q.category) ?? { n: 0, r: zero() };
        row.n++;
        for (const mode of modes) {
          const ids = mode.peer
            ? peer
                .search(toFtsQuery(q.question, { dropStopwords: true }).replaceAll('"', ''), 10)
                .map((h) => h.chunk.id)
            : (await searchMemory(store, conv.id, q.question, searchOptions(mode))).map((h) => h.chunk.id);
          const found = (k: number) =>
            evidence.filter((e) => ids.slice(0, k).includes(e)).length / evidence.length;
          row.r[mode.name]!.at5 += found(5);
          row.r[mode.name]!.at10 += found(10);
        }
        sums.set(q.category, row);
      }
    } finally {
      handle.close();
    }
  }

  const latency: Record<string, LatencyStats> = {};
  const searches = options.latencySearches ?? 300;
  if (searches > 0 && allChunks.length > 0) {
    const handle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      await indexChunks(store, 'all', allChunks);
      const questions = options.conversations.flatMap((c) => c.questions.map((q) => q.question));
      for (const mode of modes.filter((m) => m.name === 'default' || m.name === 'keyword')) {
        const opts = searchOptions(mode);
        await searchMemory(store, 'all', questions[0] ?? 'warm up', opts);
        const times: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i < Math.min(searches, questions.length); i++) {
          const q = questions[Math.floor((i * questions.length) / Math.min(searches, questions.length))]!;
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
        latency[mode.name] = {
          turns: allChunks.length,
          searches: times.length,
          ...stats(times),
          cpu: stats(cpu),
        };
      }
    } finally {
      handle.close();
    }
  }

  const toRow = (category: number, n: number, r: Record<string, RecallCell>): CategoryRow => ({
    category,
    questions: n,
    recall: Object.fromEntries(
      modes.map((m) => [
        m.name,
        { at5: n === 0 ? 0 : r[m.name]!.at5 / n, at10: n === 0 ? 0 : r[m.name]!.at10 / n },
      ]),
    ),
  });
  const rows = [...sums.entries()].sort(([a], [b]) => a - b).map(([c, s]) => toRow(c, s.n, s.r));
  const all = zero();
  let n = 0;
  for (const [c, s] of sums) {
    if (c === 5) continue;
    n += s.n;
    for (const m of modes) {
      all[m.name]!.at5 += s.r[m.name]!.at5;
      all[m.name]!.at10 += s.r[m.name]!.at10;
    }
  }
  return {
    embedder: options.embedder.modelId,
    modes: modes.map((m) => m.name),
    conversations: options.conversations.length,
    turns,
    skippedNoEvidence: skipped,
    rows,
    overall: toRow(0, n, all),
    latency,
  };
}
