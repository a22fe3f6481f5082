/**
 * Grids of the list weights for the memory-levers harness (the keyword, fact and neighbour weights
 * and the per-session cap that apply to a question that asks for several things, `asksForSeveral`),
 * and the alternative tried: a per-session cap where a signal of the ranking says several sessions
 * compete.
 */
import { type FusionWeights, fuseFeatures } from '../../src/core/index.ts';
import { fusedTop, greedy, NO_DECAY, type Ranker, type Scored, sameSession } from './ranking.ts';

/** Every combination of the values given, on top of `base`. */
export function listGrid(
  base: FusionWeights,
  keywords: number[],
  facts: number[],
  neighbours: number[],
  caps: number[],
): FusionWeights[] {
  return keywords.flatMap((listKeyword) =>
    facts.flatMap((listFacts) =>
      neighbours.flatMap((listNeighbour) =>
        caps.map((listPerSession) => ({ ...base, listKeyword, listFacts, listNeighbour, listPerSession })),
      ),
    ),
  );
}

export const listLabel = (w: FusionWeights) =>
  `keyword ${w.listKeyword}, facts ${w.listFacts}, neighbour ${w.listNeighbour}, cap ${w.listPerSession || 'off'}`;

/**
 * A signal of the ranking itself: (best score − best score of another session) / best score, in the
 * fused ranking under `w`. Small: several sessions compete, no clear winner.
 */
export function sessionMargin(q: Scored, w: FusionWeights): number {
  const hits = fuseFeatures(q.f, w, 30, 0, NO_DECAY);
  if (hits.length === 0) return 1;
  const session = (h: (typeof hits)[number]) => q.f.units.sourceId[q.f.index.byId.get(h.chunk.id)!];
  const other = hits.find((h) => session(h) !== session(hits[0]!));
  return other ? (hits[0]!.score - other.score) / hits[0]!.score : 1;
}

/**
 * For each margin threshold: at most `cap` turns per session where `sessionMargin` is below it,
 * the plain ranking elsewhere, the cap (first: none) to choose per fold. Also the share it fires on.
 */
export function marginLevers<Q extends Scored>(
  questions: readonly Q[],
  w: FusionWeights,
  thresholds: number[],
  caps: number[],
): { levers: [string, Ranker<Q>[], string[]][]; fires: string[] } {
  const margin = new Map(questions.map((q) => [q, sessionMargin(q, w)]));
  const plain: Ranker<Q> = (q) => fusedTop(q, q.f, w);
  const levers = thresholds.map((t): [string, Ranker<Q>[], string[]] => [
    `statement 0.75; ranking margin < ${t}: per-session cap chosen per fold`,
    [
      plain,
      ...caps.map((cap) => {
        const capped = greedy<Q>(w, 100, (q, s, i, p) => (sameSession(q, i, p) < cap ? s : s - 2));
        return (q: Q) => (margin.get(q)! < t ? capped(q) : plain(q));
      }),
    ],
    ['none', ...caps.map(String)],
  ]);
  const fires = thresholds.map((t) => {
    const of = (c: number) => questions.filter((q) => q.category === c);
    const hit = [1, 2, 3, 4].map((c) => `${of(c).filter((q) => margin.get(q)! < t).length}/${of(c).length}`);
    return `ranking margin < ${t} fires on ${hit.join(', ')} (categories 1–4)`;
  });
  return { levers, fires };
}
