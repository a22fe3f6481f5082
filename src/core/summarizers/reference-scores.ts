/**
 * `scoreReferences` for `rankMessageReferences`, on the references each message gives (read once per
 * message) without a map of statistics per call: each reference string is numbered once in the
 * process (per references map, memoized), and the statistics of a call live in typed arrays by number,
 * stamped with the call. A compaction ranks the references of what it folds twice (the summarizer, then
 * the index under the summary), thousands each time; the map updates were most of that. `rankSources`
 * orders them by worth per length with a native sort of the worths (`rankMessageReferences` sorted
 * objects twice with comparators).
 *
 * Same answer as `scoreReferences` (`test/core/summarizers/reference-index.test.ts` compares them):
 * the same statistics per reference, the same score expression, the same order before the stable sort
 * (first appearance). Bounded: past `MAX_REFS` references or `MAX_CHARS` characters the numbering
 * starts over (a new generation; numbers of the old one are made again on use).
 */
import {
  codeSpans,
  extractReferences,
  REFERENCE_AGENT_BONUS,
  REFERENCE_RECENCY_WEIGHT,
  REFERENCE_TASK_BONUS,
  type ReferenceKind,
  type ScoredReference,
} from '../text/references.ts';

const MAX_REFS = 200_000;
const MAX_CHARS = 4_000_000;

let numbers = new Map<string, number>();
let names: string[] = [];
let chars = 0;
let generation = 0;
// Statistics by number, valid where `stamp` holds the current call.
let stamp = new Float64Array(1024);
let count = new Int32Array(1024);
let last = new Float64Array(1024);
let agent = new Uint8Array(1024);
let task = new Uint8Array(1024);
const kindOf: ReferenceKind[] = [];
let call = 0;

interface Numbered {
  generation: number;
  ids: Int32Array;
  kinds: ReferenceKind[];
}
const numbered = new WeakMap<ReadonlyMap<string, ReferenceKind>, Numbered>();

function grow<T extends Float64Array | Int32Array | Uint8Array>(a: T, make: (n: number) => T): T {
  const b = make(a.length * 2);
  b.set(a);
  return b;
}

function numberOf(ref: string): number {
  const known = numbers.get(ref);
  if (known !== undefined) return known;
  const id = names.length;
  names.push(ref);
  numbers.set(ref, id);
  chars += ref.length;
  if (id >= stamp.length) {
    stamp = grow(stamp, (n) => new Float64Array(n));
    count = grow(count, (n) => new Int32Array(n));
    last = grow(last, (n) => new Float64Array(n));
    agent = grow(agent, (n) => new Uint8Array(n));
    task = grow(task, (n) => new Uint8Array(n));
  }
  return id;
}

/** Set while a call numbers its references again in a new generation: no second start-over. */
let holding = false;

function numberAll(refs: ReadonlyMap<string, ReferenceKind>): Numbered {
  const hit = numbered.get(refs);
  if (hit && hit.generation === generation) return hit;
  if (!holding && (names.length + refs.size > MAX_REFS || chars > MAX_CHARS)) {
    numbers = new Map();
    names = [];
    chars = 0;
    generation++;
  }
  const ids = new Int32Array(refs.size);
  const kinds: ReferenceKind[] = [];
  let i = 0;
  refs.forEach((kind, ref) => {
    ids[i++] = numberOf(ref);
    kinds.push(kind);
  });
  const out = { generation, ids, kinds };
  numbered.set(refs, out);
  return out;
}

export interface ScoredSource {
  /** The source text (the task's code spans are read from it). */
  text: string;
  /** Its references, as `extractReferences(text)` gives them. */
  refs: ReadonlyMap<string, ReferenceKind>;
  at: number;
  agent: boolean;
  task: boolean;
}

/** The task's code spans' references, for the last task text seen (every compaction asks again). */
let taskText: string | undefined;
let taskRefs: ReadonlyMap<string, ReferenceKind> = new Map();

function spelledInTask(text: string): ReadonlyMap<string, ReferenceKind> {
  if (text !== taskText) {
    taskRefs = extractReferences(codeSpans(text));
    taskText = text;
  }
  return taskRefs;
}

/** The statistics of one call, by number (`touched`, in order of first appearance), and its span. */
interface Tally {
  touched: number[];
  first: number;
  span: number;
}

function tally(sources: readonly ScoredSource[]): Tally {
  // Numbers first, all in one generation (a new generation mid-way would orphan the earlier ones):
  // when one started, all are numbered again in it, past the bound if this call alone holds more
  // (the next call starts over).
  const g = generation;
  let all = sources.map((s) => numberAll(s.refs));
  if (generation !== g) {
    holding = true;
    all = sources.map((s) => numberAll(s.refs));
    holding = false;
  }
  call++;
  const touched: number[] = [];
  let first = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    first = Math.min(first, s.at);
    end = Math.max(end, s.at);
    const spelled = s.task ? spelledInTask(s.text) : undefined;
    const { ids, kinds } = all[i]!;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      const inTask = spelled?.has(names[id]!) === true;
      if (stamp[id] !== call) {
        stamp[id] = call;
        touched.push(id);
        count[id] = 1;
        last[id] = s.at;
        agent[id] = s.agent ? 1 : 0;
        task[id] = inTask ? 1 : 0;
        kindOf[id] = kinds[k]!;
        continue;
      }
      count[id]!++;
      last[id] = Math.max(last[id]!, s.at);
      if (s.agent) agent[id] = 1;
      if (inTask) task[id] = 1;
    }
  }
  return { touched, first, span: Math.max(1, end - first) };
}

function scoreOf(id: number, first: number, span: number): number {
  return (
    Math.log(1 + count[id]!) +
    REFERENCE_RECENCY_WEIGHT * ((last[id]! - first) / span) +
    (agent[id] ? REFERENCE_AGENT_BONUS : 0) +
    (task[id] ? REFERENCE_TASK_BONUS : 0)
  );
}

/** `scoreReferences(sources, (_, i) => sources[i].refs)`, exactly. */
export function scoreSources(sources: readonly ScoredSource[]): ScoredReference[] {
  const { touched, first, span } = tally(sources);
  return touched
    .map((id) => ({
      ref: names[id]!,
      kind: kindOf[id]!,
      count: count[id]!,
      last: last[id]!,
      score: scoreOf(id, first, span),
    }))
    .sort((a, b) => b.score - a.score || b.last - a.last)
    .map(({ ref, kind, count, score }) => ({ ref, kind, count, score }));
}

/**
 * `scoreSources(sources)` without the references in `leave`, ordered by score per
 * length^`exponent` (ties in the order `scoreSources` gives): the two stable sorts
 * `rankMessageReferences` made, by score then by worth per length, order the references by worth per
 * length, then score, then recency, then first appearance — the keys of this order.
 */
export function rankSources(
  sources: readonly ScoredSource[],
  leave: ReadonlySet<string>,
  exponent: number,
): ScoredReference[] {
  const { touched, first, span } = tally(sources);
  const ids: number[] = [];
  for (const id of touched) if (!leave.has(names[id]!)) ids.push(id);
  const n = ids.length;
  const score = new Float64Array(n);
  const worth = new Float64Array(n);
  const recent = new Float64Array(n);
  // Per worth, its references in order of first appearance.
  const byWorth = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    score[i] = scoreOf(id, first, span);
    worth[i] = score[i]! / names[id]!.length ** exponent;
    recent[i] = last[id]!;
    const same = byWorth.get(worth[i]!);
    if (same) same.push(i);
    else byWorth.set(worth[i]!, [i]);
  }
  // The worths sorted natively (a comparator called n log n times was most of the ranking), best first;
  // only references of equal worth are compared, by score, recency and first appearance.
  const values = Float64Array.from(worth).sort();
  const order: number[] = [];
  for (let k = n - 1; k >= 0; k--) {
    if (k < n - 1 && values[k] === values[k + 1]) continue;
    const same = byWorth.get(values[k]!)!;
    if (same.length > 1) same.sort((a, b) => score[b]! - score[a]! || recent[b]! - recent[a]! || a - b);
    for (const i of same) order.push(i);
  }
  return order.map((i) => {
    const id = ids[i]!;
    return { ref: names[id]!, kind: kindOf[id]!, count: count[id]!, score: score[i]! };
  });
}
