/**
 * The default search mode's second half: from `SearchFeatures` to ranked hits. Each candidate's own
 * score fuses its keyword and vector sides; a conversation turn also takes the best score of each
 * kind of unit covering it (window, session span, fact keys and facts); then every candidate shares
 * in its neighbours' and its source's best; then the query's own signals (the speakers it names, the
 * days it speaks of, whether it asks for a time) add their weight where they hold. The vector side
 * mixes in the statement form's (`statement`); a query that asks for several things takes the list
 * weights and at most `listPerSession` hits of one source before the others. Every sum is
 * divided by its weights, so a score stays in 0–1 and a tenant without conversations, asked without
 * a time, ranks exactly as before units existed.
 */

import type { UnitKind } from './conversation-units.ts';
import type { ChunkRecord } from './memory-store.ts';
import type { SearchFeatures } from './search-features.ts';
import type { SearchHit, UnitVia } from './search-options.ts';
import { ROLE } from './unit-index.ts';

/** The weights `fuseFeatures` applies; `SearchOptions` fills them from its defaults. */
export interface FusionWeights {
  vector: number;
  keyword: number;
  rrf: boolean;
  rrfK: number;
  neighbour: number;
  source: number;
  window: number;
  session: number;
  facts: number;
  speaker: number;
  time: number;
  when: number;
  /** Share of the statement form's vector side in the vector side (0: the question's only). */
  statement: number;
  /**
   * For a query that asks for several things (`SearchFeatures.several`): the keyword, fact and
   * neighbour weights in place of `keyword`, `facts` and `neighbour` (null: the same), and at most
   * `listPerSession` hits of one source before any hit of a source that has fewer (0: no cap).
   */
  listKeyword: number | null;
  listFacts: number | null;
  listNeighbour: number | null;
  listPerSession: number;
}

/** The weights that apply to `f`: the list weights in place of their general ones when it asks for several things. */
function weightsFor(f: SearchFeatures, w: FusionWeights): FusionWeights {
  if (!f.several) return w;
  return {
    ...w,
    keyword: w.listKeyword ?? w.keyword,
    facts: w.listFacts ?? w.facts,
    neighbour: w.listNeighbour ?? w.neighbour,
  };
}

/**
 * `order` (best first) with at most `cap` hits of one source ahead of the rest: a hit whose source
 * already has `cap` is deferred, and the deferred follow in their order.
 */
function capPerSource(
  order: readonly number[],
  sourceOf: ArrayLike<number>,
  cap: number,
  k: number,
): number[] {
  const kept: number[] = [];
  const deferred: number[] = [];
  const count = new Map<number, number>();
  for (const i of order) {
    if (kept.length === k) break;
    const s = sourceOf[i]!;
    const c = count.get(s) ?? 0;
    if (c < cap) {
      kept.push(i);
      count.set(s, c + 1);
    } else deferred.push(i);
  }
  return [...kept, ...deferred].slice(0, k);
}

/** Weight slot of each unit role: window, session span, facts (fact keys and extracted facts). */
const SLOT: Record<number, number> = { [ROLE.window]: 0, [ROLE.session]: 1, [ROLE.keys]: 2, [ROLE.facts]: 2 };
const KIND_NAME: Record<number, UnitKind> = {
  [ROLE.window]: 'window',
  [ROLE.session]: 'session',
  [ROLE.keys]: 'keys',
  [ROLE.facts]: 'facts',
};

/**
 * Scores every visible candidate and returns the best `maxResults` with a score > 0 and ≥
 * `minScore` (ties keep the index order: source, then line). `decay` scales the final score.
 */
export function fuseFeatures(
  f: SearchFeatures,
  weights: FusionWeights,
  maxResults: number,
  minScore: number,
  decay: (chunk: ChunkRecord) => number,
): SearchHit[] {
  const { index, units, visible } = f;
  const w = weightsFor(f, weights);
  const st = f.statementVec && w.statement > 0 ? w.statement : 0;
  const n = index.chunks.length;
  const vw = f.vectors ? w.vector : 0;
  const kw = w.keyword;
  const total = vw + kw;
  if (total === 0) return [];
  const own = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (!visible[i]) continue;
    own[i] = w.rrf
      ? ((f.vecRank[i] ? vw / (w.rrfK + f.vecRank[i]!) : 0) +
          (f.keyRank[i] ? kw / (w.rrfK + f.keyRank[i]!) : 0)) *
        ((w.rrfK + 1) / total)
      : (vw * (st > 0 ? (1 - st) * f.vec[i]! + st * f.statementVec![i]! : f.vec[i]!) + kw * f.key[i]!) /
        total;
  }

  // The best unit of each kind (fact keys and extracted facts share one) over every turn it covers.
  const slots = [w.window, w.session, w.facts];
  const bestUnit = slots.map((weight) => (weight > 0 ? new Int32Array(n).fill(-1) : null));
  for (let u = 0; u < n; u++) {
    const kind = units.kind[u]!;
    if (kind < ROLE.window || !visible[u] || units.coverFrom[u]! < 0) continue;
    const best = bestUnit[SLOT[kind]!];
    if (!best) continue;
    const s = own[u]!;
    for (let t = units.coverFrom[u]!; t <= units.coverTo[u]!; t++)
      if (best[t]! < 0 || s > own[best[t]!]!) best[t] = u;
  }
  const base = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (!visible[i] || units.kind[i]! > ROLE.turn) continue;
    let sum = own[i]!;
    let weights = 1;
    for (let k = 0; k < 3; k++) {
      const u = bestUnit[k]?.[i] ?? -1;
      if (u < 0) continue;
      sum += slots[k]! * own[u]!;
      weights += slots[k]!;
    }
    base[i] = sum / weights;
  }
  /** The unit that added most to turn `t`, if any. */
  const via = (t: number): UnitVia | undefined => {
    let best = -1;
    let gain = 0;
    for (let k = 0; k < 3; k++) {
      const u = bestUnit[k]?.[t] ?? -1;
      if (u >= 0 && slots[k]! * own[u]! > gain) {
        gain = slots[k]! * own[u]!;
        best = u;
      }
    }
    return best < 0
      ? undefined
      : { kind: KIND_NAME[units.kind[best]!]!, id: index.chunks[best]!.id, score: own[best]! };
  };

  // Context: a candidate shares in its neighbours' and its source's best score.
  const best = new Float64Array(units.sources);
  for (let i = 0; i < n; i++) {
    const src = units.sourceId[i]!;
    if (base[i]! > best[src]!) best[src] = base[i]!;
  }
  const signals = (f.speaker ? w.speaker : 0) + (f.time ? w.time : 0) + (f.when ? w.when : 0);
  const final = new Float64Array(n);
  const picked: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!visible[i] || units.kind[i]! > ROLE.turn) continue;
    const p = index.prev[i]!;
    const q = index.next[i]!;
    const around = Math.max(p >= 0 ? base[p]! : 0, q >= 0 ? base[q]! : 0);
    const chunk = index.chunks[i]!;
    const context =
      (base[i]! + w.neighbour * around + w.source * best[units.sourceId[i]!]!) / (1 + w.neighbour + w.source);
    const signal = (f.speaker?.[i] ? w.speaker : 0) + (f.time?.[i] ? w.time : 0) + (f.when?.[i] ? w.when : 0);
    const score = ((context + signal) / (1 + signals)) * decay(chunk);
    if (score > 0 && score >= minScore) {
      final[i] = score;
      picked.push(i);
    }
  }
  picked.sort((a, b) => final[b]! - final[a]! || a - b);
  const top =
    f.several && w.listPerSession > 0
      ? capPerSource(picked, units.sourceId, w.listPerSession, maxResults)
      : picked.slice(0, maxResults);
  return top.map((i) => {
    const hit: SearchHit = {
      chunk: index.chunks[i]!,
      score: final[i]!,
      vectorScore: f.vecRaw[i]!,
      keywordScore: f.key[i]!,
    };
    const from = units.kind[i] === ROLE.turn ? via(i) : undefined;
    if (from) hit.via = from;
    return hit;
  });
}
