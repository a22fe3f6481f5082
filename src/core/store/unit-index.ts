/**
 * What search needs to know about a tenant's conversation units, derived once per `ChunkIndex`
 * (stores hand out the same index object until the tenant's chunks change, so a WeakMap keyed by it
 * is exactly as fresh): each chunk's role, the turns every unit covers, each turn's speaker, the day
 * ranges of dated chunks (their date and the time expressions of their text resolved against it),
 * and the vectors of windows and session spans (the mean of their turns').
 */
import { sourceRole, speakerOf, type UnitKind } from './conversation-units.ts';
import type { ChunkIndex } from './memory-store.ts';
import { type DayRange, dayOf, timeRanges } from './time-expressions.ts';

/** Role codes in `UnitIndex.kind`. */
export const ROLE = { plain: 0, turn: 1, window: 2, session: 3, keys: 4, facts: 5 } as const;
const KIND_CODE: Record<UnitKind, number> = { window: 2, session: 3, keys: 4, facts: 5 };

export interface UnitIndex {
  /** `ROLE` code of each chunk. */
  kind: Uint8Array;
  /** For units: the first and last position (in the chunk index) of the turns covered; -1 otherwise. */
  coverFrom: Int32Array;
  coverTo: Int32Array;
  /** The speaker of each turn chunk (null for other chunks). */
  speaker: readonly (string | null)[];
  /** Distinct speakers, lower-cased, with how many turns each has. */
  speakers: ReadonlyMap<string, number>;
  /** Day ranges of each dated chunk: its date, then what its text's time expressions resolve to. */
  days: readonly (readonly DayRange[] | null)[];
  /** Whether the chunk's own text holds a time expression (resolved against its date). */
  hasTime: Uint8Array;
  /**
   * For windows and session spans without a vector of their own: the length of the sum of their
   * turns' unit vectors (0 otherwise). Their cosine with a query is then the sum of the turns'
   * cosines over it — the mean vector's cosine, without a dot product of its own.
   */
  meanNorm: Float64Array;
  /** Whether any chunk is a conversation turn. */
  hasTurns: boolean;
  /** A number per distinct source (chunks are sorted by source, so each source is one run). */
  sourceId: Int32Array;
  sources: number;
}

const cache = new WeakMap<ChunkIndex, UnitIndex>();

/** The length of the sum of the vectors `from..to` (those present, of one length), or 0. */
function sumNorm(vectors: readonly (Float32Array | null)[], from: number, to: number): number {
  let sum: Float64Array | null = null;
  for (let i = from; i <= to; i++) {
    const v = vectors[i];
    if (!v) continue;
    if (!sum) sum = new Float64Array(v.length);
    else if (sum.length !== v.length) continue;
    for (let d = 0; d < v.length; d++) sum[d]! += v[d]!;
  }
  if (!sum) return 0;
  let norm = 0;
  for (let d = 0; d < sum.length; d++) norm += sum[d]! * sum[d]!;
  return Math.sqrt(norm);
}

export function unitIndexOf(index: ChunkIndex): UnitIndex {
  const hit = cache.get(index);
  if (hit) return hit;
  const n = index.chunks.length;
  const kind = new Uint8Array(n);
  const coverFrom = new Int32Array(n).fill(-1);
  const coverTo = new Int32Array(n).fill(-1);
  const speaker: (string | null)[] = new Array(n).fill(null);
  const speakers = new Map<string, number>();
  const days: (DayRange[] | null)[] = new Array(n).fill(null);
  const hasTime = new Uint8Array(n);
  // Positions of each turn source's chunks by line (chunks are sorted by source, then line).
  const turnsBySource = new Map<string, Map<number, number>>();
  for (let i = 0; i < n; i++) {
    const c = index.chunks[i]!;
    const role = sourceRole(c.source);
    if (role.role === 'turn') {
      kind[i] = ROLE.turn;
      const who = speakerOf(c.text);
      speaker[i] = who;
      if (who !== null) speakers.set(who.toLowerCase(), (speakers.get(who.toLowerCase()) ?? 0) + 1);
      const lines = turnsBySource.get(c.source) ?? new Map<number, number>();
      turnsBySource.set(c.source, lines);
      lines.set(c.startLine, i);
    } else if (role.role === 'unit') kind[i] = KIND_CODE[role.kind];
    const day = dayOf(c.date);
    if (day !== null && kind[i]! <= ROLE.turn) {
      const own = timeRanges(c.text, day);
      hasTime[i] = own.length > 0 ? 1 : 0;
      days[i] = [{ from: day, to: day }, ...own];
    }
  }
  const meanNorm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (kind[i]! < ROLE.window) continue;
    const c = index.chunks[i]!;
    const role = sourceRole(c.source);
    if (role.role !== 'unit') continue;
    const lines = turnsBySource.get(role.turnSource);
    if (!lines) continue;
    let from = -1;
    let to = -1;
    for (let line = c.startLine; line <= c.endLine; line++) {
      const at = lines.get(line);
      if (at === undefined) continue;
      if (from < 0 || at < from) from = at;
      if (at > to) to = at;
    }
    coverFrom[i] = from;
    coverTo[i] = to;
    if (!index.vectors[i] && from >= 0 && (kind[i] === ROLE.window || kind[i] === ROLE.session))
      meanNorm[i] = sumNorm(index.vectors, from, to);
  }
  const sourceId = new Int32Array(n);
  let sources = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0 && index.chunks[i]!.source !== index.chunks[i - 1]!.source) sources++;
    sourceId[i] = sources;
  }
  const units: UnitIndex = {
    kind,
    coverFrom,
    coverTo,
    speaker,
    speakers,
    days,
    hasTime,
    meanNorm,
    hasTurns: turnsBySource.size > 0,
    sourceId,
    sources: n === 0 ? 0 : sources + 1,
  };
  cache.set(index, units);
  return units;
}
