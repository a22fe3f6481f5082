/**
 * Ranking and scoring helpers of the memory-levers harness: greedy re-ranking of the fused top,
 * R@10 per category, and the leave-one-conversation-out choice of a lever's setting.
 */
import { type FusionWeights, fuseFeatures, type SearchFeatures } from '../../src/core/index.ts';

export interface Scored {
  conv: string;
  category: number;
  /** Positions of the evidence turns in `f.index`. */
  evidence: number[];
  f: SearchFeatures;
}

/** Positions in `q.f.index` of the top turns, best first. */
export type Ranker<Q extends Scored> = (q: Q) => number[];

export const NO_DECAY = () => 1;

/** The top 10 of `features` (which may come from another store) as positions in `q.f.index`. */
export function fusedTop(q: Scored, features: SearchFeatures, weights: FusionWeights, k = 10): number[] {
  return fuseFeatures(features, weights, k, 0, NO_DECAY).map((h) => q.f.index.byId.get(h.chunk.id)!);
}

/** Re-ranks the fused top `pool` greedily: each pick maximises `value(score, index, picked)`. */
export function greedy<Q extends Scored>(
  weights: FusionWeights,
  pool: number,
  value: (q: Q, score: number, i: number, picked: number[]) => number,
  features: (q: Q) => SearchFeatures = (q) => q.f,
): Ranker<Q> {
  return (q) => {
    const left = fuseFeatures(features(q), weights, pool, 0, NO_DECAY).map((h) => ({
      i: q.f.index.byId.get(h.chunk.id)!,
      s: h.score,
    }));
    const picked: number[] = [];
    while (left.length > 0 && picked.length < 10) {
      let best = 0;
      let bestValue = Number.NEGATIVE_INFINITY;
      for (const [k, c] of left.entries()) {
        const v = value(q, c.s, c.i, picked);
        if (v > bestValue) {
          bestValue = v;
          best = k;
        }
      }
      picked.push(left.splice(best, 1)[0]!.i);
    }
    return picked;
  };
}

export const sameSession = (q: Scored, i: number, picked: number[]) =>
  picked.filter((p) => q.f.units.sourceId[p] === q.f.units.sourceId[i]).length;

/** Share of the question's evidence turns in the ranker's top 10. */
export function recallAt10<Q extends Scored>(q: Q, rank: Ranker<Q>): number {
  const top = rank(q).slice(0, 10);
  return q.evidence.filter((e) => top.includes(e)).length / q.evidence.length;
}

/** `| name | all | multi-hop | temporal | open-domain | single-hop |` from per-question recall. */
export function row(name: string, scored: readonly { q: Scored; r: number }[]): string {
  const pct = (xs: readonly { r: number }[]) =>
    xs.length === 0 ? '—' : ((100 * xs.reduce((n, x) => n + x.r, 0)) / xs.length).toFixed(1);
  const cells = [1, 2, 3, 4].map((c) => pct(scored.filter((x) => x.q.category === c)));
  return `| ${name} | ${pct(scored)} | ${cells.join(' | ')} |`;
}

/**
 * Leave one conversation out: for each conversation, the setting (index into `grid`) with the best
 * mean R@10 over the other conversations' questions (the first of equals: list "off" first), then
 * that setting's recall on the held-out questions. Returns them pooled and the choice per fold.
 */
export function heldOut<Q extends Scored>(
  questions: readonly Q[],
  grid: readonly Ranker<Q>[],
): { scored: { q: Q; r: number }[]; chosen: Map<string, number> } {
  const table = questions.map((q) => grid.map((rank) => recallAt10(q, rank)));
  const scored: { q: Q; r: number }[] = [];
  const chosen = new Map<string, number>();
  for (const conv of new Set(questions.map((q) => q.conv))) {
    const mean = (g: number) => {
      let sum = 0;
      let n = 0;
      for (const [k, q] of questions.entries())
        if (q.conv !== conv) {
          sum += table[k]![g]!;
          n++;
        }
      return sum / n;
    };
    let best = 0;
    for (let g = 1; g < grid.length; g++) if (mean(g) > mean(best) + 1e-12) best = g;
    chosen.set(conv, best);
    for (const [k, q] of questions.entries()) if (q.conv === conv) scored.push({ q, r: table[k]![best]! });
  }
  return { scored, chosen };
}
