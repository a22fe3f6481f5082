/**
 * How the default mode's weights are chosen: leave-one-conversation-out on the open half of LoCoMo.
 * Every question's search features are computed once (`searchFeatures`); a weight setting is scored
 * by re-ranking them (`fuseFeatures`), so the search runs once per question. For each conversation,
 * coordinate ascent over a fixed grid picks the weights that maximise mean R@10 (categories 1–4; R@5
 * breaks ties) on the other conversations, and the held-out conversation is scored with them: the
 * pooled held-out recall is the estimate of what the procedure gives on conversations it never saw.
 * The shipped weights are the same procedure run on all the open conversations. No test half is
 * ever read.
 */
import {
  type ChunkIndex,
  type Embedder,
  type FusionWeights,
  fuseFeatures,
  fusionWeights,
  type SearchFeatures,
  searchFeatures,
  turnIdOf,
} from '../../core/index.ts';

import { createSqliteMemoryStore, openSqlite } from '../../db/sqlite/index.ts';
import { askedAt, type LocomoConversation } from './locomo.ts';
import { indexLocomo } from './locomo-bench.ts';

/** The weights the selection tunes, with the values it may pick (keyword weight stays 0.5). */
export const SELECTION_GRID = {
  vector: [0.25, 0.5, 0.75, 1],
  neighbour: [0, 0.25, 0.5, 0.75, 1],
  source: [0, 0.1, 0.2, 0.4],
  window: [0, 0.25, 0.5, 1],
  session: [0, 0.125, 0.25, 0.5],
  facts: [0, 0.25, 0.5, 1],
  speaker: [0, 0.1, 0.2, 0.3, 0.5],
  time: [0, 0.1, 0.2, 0.3, 0.5],
  when: [0, 0.05, 0.1, 0.2],
  statement: [0, 0.25, 0.5, 0.75, 1],
  // A query that asks for several things: null = the general weight.
  listKeyword: [null, 0.5, 0.25, 0.1],
  listFacts: [null, 1, 2, 3],
  listNeighbour: [null, 0.5, 0.25, 0],
  listPerSession: [0, 5, 4, 3],
} as const satisfies Partial<{ [K in keyof FusionWeights]: readonly FusionWeights[K][] }>;

export type TunedWeights = { [K in keyof typeof SELECTION_GRID]: FusionWeights[K] };

/**
 * Where every fold's ascent starts: the default mode as it was before units and query signals
 * (0.5/0.5, neighbour 0.5, source 0.2) with all of them off. Fixed, so that no fold starts from
 * weights chosen on the conversation it holds out.
 */
export const SELECTION_START: TunedWeights = {
  vector: 0.5,
  neighbour: 0.5,
  source: 0.2,
  window: 0,
  session: 0,
  facts: 0,
  speaker: 0,
  time: 0,
  when: 0,
  statement: 0,
  listKeyword: null,
  listFacts: null,
  listNeighbour: null,
  listPerSession: 0,
};

interface Question {
  conversation: string;
  category: number;
  evidence: readonly number[];
  features: SearchFeatures;
}

export interface FoldResult {
  heldOut: string;
  weights: TunedWeights;
  /** Mean R@10 of the chosen weights on the other conversations. */
  train: number;
  /** Mean R@5 / R@10 on the held-out conversation (categories 1–4). */
  heldOutAt5: number;
  heldOutAt10: number;
}

export interface SelectionResult {
  folds: FoldResult[];
  /** Every question of categories 1–4 scored with the weights chosen without its conversation. */
  pooled: {
    at5: number;
    at10: number;
    byCategory: Record<string, { questions: number; at5: number; at10: number }>;
  };
  /** The same procedure on every conversation: the weights to ship. */
  chosen: TunedWeights;
}

const NO_DECAY = () => 1;

function recallOf(q: Question, w: FusionWeights): [number, number] {
  const hits = fuseFeatures(q.features, w, 10, 0, NO_DECAY);
  const ranks = hits.map((h) => q.features.index.byId.get(h.chunk.id)!);
  const found = (k: number) =>
    q.evidence.filter((e) => ranks.slice(0, k).includes(e)).length / q.evidence.length;
  return [found(5), found(10)];
}

/**
 * What the selection maximises: `questions` = mean recall over the questions (micro);
 * `categories` = the mean of the categories' means (macro: every kind of question counts alike);
 * `goals` = the mean of the questions' recall and the multi-hop questions' (category 1) recall.
 */
export type SelectionObjective = 'questions' | 'categories' | 'goals';

function mean(
  questions: readonly Question[],
  w: FusionWeights,
  objective: SelectionObjective = 'questions',
): [number, number] {
  const sums = new Map<number, [number, number, number]>();
  let a = 0;
  let b = 0;
  for (const q of questions) {
    const [r5, r10] = recallOf(q, w);
    a += r5;
    b += r10;
    const s = sums.get(q.category) ?? [0, 0, 0];
    sums.set(q.category, [s[0] + 1, s[1] + r5, s[2] + r10]);
  }
  if (questions.length === 0) return [0, 0];
  if (objective === 'questions') return [a / questions.length, b / questions.length];
  if (objective === 'goals') {
    const hop = sums.get(1) ?? [1, 0, 0];
    return [(a / questions.length + hop[1] / hop[0]) / 2, (b / questions.length + hop[2] / hop[0]) / 2];
  }
  const cats = [...sums.values()];
  return [
    cats.reduce((x, c) => x + c[1] / c[0], 0) / cats.length,
    cats.reduce((x, c) => x + c[2] / c[0], 0) / cats.length,
  ];
}

const withTuned = (base: FusionWeights, t: TunedWeights): FusionWeights => ({ ...base, ...t });

/** Coordinate ascent over `SELECTION_GRID` from `start`, at most `rounds` sweeps. */
export function coordinateAscent(
  questions: readonly Question[],
  base: FusionWeights,
  start: TunedWeights,
  target: SelectionObjective = 'questions',
  rounds = 3,
): { weights: TunedWeights; score: number } {
  const objective = (t: TunedWeights) => {
    const [r5, r10] = mean(questions, withTuned(base, t), target);
    return r10 + 0.001 * r5;
  };
  let weights = { ...start };
  let best = objective(weights);
  for (let round = 0; round < rounds; round++) {
    let moved = false;
    for (const [name, values] of Object.entries(SELECTION_GRID) as [
      keyof TunedWeights,
      readonly (number | null)[],
    ][])
      for (const v of values) {
        if (weights[name] === v) continue;
        const next = { ...weights, [name]: v };
        const score = objective(next);
        if (score > best + 1e-12) {
          best = score;
          weights = next;
          moved = true;
        }
      }
    if (!moved) break;
  }
  return { weights, score: best };
}

/** Maps a question's evidence ids to the positions of their turns in `index` (unknown ids left out). */
export function evidencePositions(index: ChunkIndex): (ids: readonly string[]) => number[] {
  const byTurn = new Map<string, number>();
  for (const [i, c] of index.chunks.entries()) {
    const id = turnIdOf(c);
    if (id !== null) byTurn.set(id, i);
  }
  return (ids) => [...new Set(ids.flatMap((e) => (byTurn.has(e) ? [byTurn.get(e)!] : [])))];
}

/** The search features of every question with known evidence (categories 1–4), one store per conversation. */
export async function collectQuestions(
  conversations: readonly LocomoConversation[],
  embedder: Embedder,
): Promise<Question[]> {
  const out: Question[] = [];
  for (const conv of conversations) {
    const handle = openSqlite({ path: ':memory:' });
    try {
      const store = createSqliteMemoryStore(handle);
      await indexLocomo(store, conv, conv.id, embedder);
      const index = await store.chunkIndex(conv.id, embedder.modelId);
      const evidenceOf = evidencePositions(index);
      for (const q of conv.questions) {
        if (q.category === 5) continue;
        const evidence = evidenceOf(q.evidence);
        if (evidence.length === 0) continue;
        const features = await searchFeatures(
          store,
          conv.id,
          q.question,
          // The statement form is embedded whatever the default weight, so that 0 is a choice.
          { embedder, now: askedAt(conv), statementWeight: 1 },
          true,
        );
        out.push({
          conversation: conv.id,
          category: q.category,
          evidence,
          features,
          q: q.question,
        } as Question);
      }
    } finally {
      handle.close();
    }
  }
  return out;
}

/** Runs the leave-one-conversation-out selection (see the file comment). */
export async function selectWeights(
  conversations: readonly LocomoConversation[],
  embedder: Embedder,
  onFold?: (fold: FoldResult) => void,
  objective: SelectionObjective = 'questions',
): Promise<SelectionResult> {
  const questions = await collectQuestions(conversations, embedder);
  const base = fusionWeights({});
  const start = SELECTION_START;
  const folds: FoldResult[] = [];
  const pooled: [Question, number, number][] = [];
  for (const conv of conversations) {
    const train = questions.filter((q) => q.conversation !== conv.id);
    const test = questions.filter((q) => q.conversation === conv.id);
    const { weights, score } = coordinateAscent(train, base, start, objective);
    const [at5, at10] = mean(test, withTuned(base, weights));
    for (const q of test) pooled.push([q, ...recallOf(q, withTuned(base, weights))]);
    const fold = { heldOut: conv.id, weights, train: score, heldOutAt5: at5, heldOutAt10: at10 };
    folds.push(fold);
    onFold?.(fold);
  }
  const byCategory: SelectionResult['pooled']['byCategory'] = {};
  for (const [q, r5, r10] of pooled) {
    const key = String(q.category);
    byCategory[key] ??= { questions: 0, at5: 0, at10: 0 };
    const c = byCategory[key];
    c.questions++;
    c.at5 += r5;
    c.at10 += r10;
  }
  for (const c of Object.values(byCategory)) {
    c.at5 /= c.questions;
    c.at10 /= c.questions;
  }
  const n = pooled.length || 1;
  const chosen = coordinateAscent(questions, base, start, objective).weights;
  return {
    folds,
    pooled: {
      at5: pooled.reduce((s, p) => s + p[1], 0) / n,
      at10: pooled.reduce((s, p) => s + p[2], 0) / n,
      byCategory,
    },
    chosen,
  };
}
