/**
 * Evidence recall of memory retrieval on LoCoMo: each conversation's turns are indexed as chunks
 * (one per `dia_id`, text `[date] speaker: text`) in a SQLite (FTS5) memory store; every question is
 * searched keyword-only, vector-only and hybrid; recall@k = share of its evidence turns in the top k.
 */
import {
  type ChunkRecord,
  type Embedder,
  embedAll,
  type MemoryStore,
  searchMemory,
} from '../../core/index.ts';
import { createSqliteMemoryStore, openSqlite } from '../../db/sqlite/index.ts';
import type { LocomoConversation } from './locomo.ts';

export interface RetrievalMode {
  name: string;
  vectorWeight: number;
  keywordWeight: number;
  fusion: 'weighted' | 'rrf';
}

/**
 * keyword-only, vector-only, the default hybrid (weighted 0.7/0.3), an equal-weight hybrid and
 * the default weights through reciprocal-rank fusion.
 */
export const DEFAULT_MODES: readonly RetrievalMode[] = [
  { name: 'keyword', vectorWeight: 0, keywordWeight: 1, fusion: 'weighted' },
  { name: 'vector', vectorWeight: 1, keywordWeight: 0, fusion: 'weighted' },
  { name: 'hybrid', vectorWeight: 0.7, keywordWeight: 0.3, fusion: 'weighted' },
  { name: 'hybrid-.5', vectorWeight: 0.5, keywordWeight: 0.5, fusion: 'weighted' },
  { name: 'hybrid-rrf', vectorWeight: 0.7, keywordWeight: 0.3, fusion: 'rrf' },
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
}

export interface MemoryBenchOptions {
  conversations: readonly LocomoConversation[];
  embedder: Embedder;
  /** @default DEFAULT_MODES */
  modes?: readonly RetrievalMode[];
  /**
   * Prefix each turn's indexed text with its session date (`[1:56 pm on 8 May, 2023] Caroline: …`).
   * Either way the date is stored in the chunk's `date` field (no decay: LoCoMo has no "now").
   * @default false
   */
  datePrefix?: boolean;
  /** Include category 5 (adversarial) as its own row. @default true */
  adversarial?: boolean;
  onProgress?: (done: number, total: number, label: string) => void;
}

function cachingEmbedder(inner: Embedder): Embedder {
  const cache = new Map<string, number[]>();
  return {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      const vectors = await embedAll(inner, missing);
      for (const [i, t] of missing.entries()) cache.set(t, vectors[i]!);
      return texts.map((t) => cache.get(t)!);
    },
  };
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

async function indexConversation(
  store: MemoryStore,
  conv: LocomoConversation,
  embedder: Embedder,
  datePrefix: boolean,
): Promise<void> {
  const texts = conv.turns.map((t) => `${datePrefix ? `[${t.date}] ` : ''}${t.speaker}: ${t.text}`);
  const vectors = await embedAll(embedder, texts);
  const bySession = new Map<number, ChunkRecord[]>();
  conv.turns.forEach((t, i) => {
    const chunk: ChunkRecord = {
      tenant: conv.id,
      id: t.diaId,
      project: '',
      userId: '',
      source: `session_${t.session}`,
      startLine: i + 1,
      endLine: i + 1,
      text: texts[i]!,
      date: locomoDate(t.date),
      embedding: vectors[i]!,
      model: embedder.modelId,
    };
    bySession.set(t.session, [...(bySession.get(t.session) ?? []), chunk]);
  });
  for (const [session, chunks] of bySession) await store.replaceChunks(conv.id, `session_${session}`, chunks);
}

export async function runMemoryBench(options: MemoryBenchOptions): Promise<MemoryBenchResult> {
  const embedder = cachingEmbedder(options.embedder);
  const modes = options.modes ?? DEFAULT_MODES;
  const zero = () =>
    Object.fromEntries(modes.map((m) => [m.name, { at5: 0, at10: 0 }])) as Record<string, RecallCell>;
  const sums = new Map<number, { n: number; r: Record<string, RecallCell> }>();
  let skipped = 0;
  let turns = 0;
  const total = options.conversations.reduce((n, c) => n + c.questions.length, 0);
  let done = 0;
  for (const conv of options.conversations) {
    const handle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      await indexConversation(store, conv, embedder, options.datePrefix ?? false);
      turns += conv.turns.length;
      const known = new Set(conv.turns.map((t) => t.diaId));
      for (const q of conv.questions) {
        done++;
        options.onProgress?.(done, total, conv.id);
        if (q.category === 5 && options.adversarial === false) continue;
        const evidence = [...new Set(q.evidence.filter((e) => known.has(e)))];
        if (evidence.length === 0) {
          skipped++;
          continue;
        }
        const row = sums.get(q.category) ?? { n: 0, r: zero() };
        row.n++;
        for (const mode of modes) {
          const hits = await searchMemory(store, conv.id, q.question, {
            now: 0,
            halfLifeDays: Number.POSITIVE_INFINITY,
            minScore: 0,
            maxResults: 10,
            embedder,
            vectorWeight: mode.vectorWeight,
            keywordWeight: mode.keywordWeight,
            fusion: mode.fusion,
          });
          const ids = hits.map((h) => h.chunk.id);
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
  };
}
