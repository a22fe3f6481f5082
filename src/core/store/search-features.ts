/**
 * The default search mode's first half: one keyword query and one query vector, scored against
 * every chunk of the tenant and normalised within each group (the candidates — turns and plain
 * chunks — and each kind of unit apart, so a long session span never outranks a turn on length), plus
 * the query's own signals: which speakers it names (the speaker query), which days it speaks of,
 * and whether it asks for a time. `fuseFeatures` turns them into a ranking; tuning re-ranks the same
 * features under other weights without searching again.
 */
import { CtxError } from '../errors.ts';
import { toFtsQuery } from './fts-query.ts';
import { type ChunkIndex, inScope, type MemoryStore } from './memory-store.ts';
import { asksForSeveral, statementQuery } from './question-forms.ts';
import { SEARCH_DEFAULTS, type SearchOptions } from './search-options.ts';
import { dot, embedQueries, fallbackHits, nonNegative, scopeOf } from './search-support.ts';
import { asksForTime, type DayRange, dayOf, overlaps, timeRanges } from './time-expressions.ts';
import { ROLE, type UnitIndex, unitIndexOf } from './unit-index.ts';

export interface SearchFeatures {
  index: ChunkIndex;
  units: UnitIndex;
  /** 1 where the chunk is in the search's scope. */
  visible: Uint8Array;
  /** Keyword score over the best match of the chunk's group (0–1). */
  key: Float64Array;
  /** 1-based keyword rank within the group (0 = no match), for reciprocal-rank fusion. */
  keyRank: Int32Array;
  /** Cosine, min-max normalised within the group (0–1); 0 without a vector. */
  vec: Float64Array;
  vecRaw: Float64Array;
  /** 1-based vector rank within the group; filled only when the options ask for `fusion: 'rrf'`. */
  vecRank: Int32Array;
  /** Whether the vector side ran (an embedder, a query vector, and chunks with its vectors). */
  vectors: boolean;
  /**
   * The vector side of the query's statement form (`statementQuery`), normalised like `vec`; null
   * when the statement weight is 0, the vector side did not run, or the form is the query itself.
   */
  statementVec: Float64Array | null;
  /** Whether the query asks for several things (`asksForSeveral`) of a conversation index: the list weights apply. */
  several: boolean;
  /** 1 for turns of a speaker the query names (null: it names none, or every one). */
  speaker: Uint8Array | null;
  /** 1 for dated chunks whose days overlap the query's (null: the query names no time). */
  time: Uint8Array | null;
  /** 1 for chunks whose text holds a time expression, when the query asks for a time (else null). */
  when: Uint8Array | null;
}

/** Normalisation group of a chunk: candidates (plain and turns) together, each unit kind apart. */
const groupOf = (kind: number) => (kind <= ROLE.turn ? 0 : kind - 1);
const GROUPS = 5;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The index's speakers the query names (whole words, case-insensitive, `Name's` too). */
export function namedSpeakers(query: string, speakers: Iterable<string>): Set<string> {
  const named = new Set<string>();
  const lower = query.toLowerCase();
  for (const s of speakers)
    if (
      lower.includes(s.toLowerCase()) &&
      new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(s)}(?=$|[^\\p{L}\\p{N}_])`, 'iu').test(query)
    )
      named.add(s);
  return named;
}

function speakerFeature(query: string, units: UnitIndex, visible: Uint8Array): Uint8Array | null {
  if (units.speakers.size < 2) return null;
  const named = namedSpeakers(query, units.speakers.keys());
  if (named.size === 0 || named.size === units.speakers.size) return null;
  const out = new Uint8Array(visible.length);
  let any = false;
  for (let i = 0; i < out.length; i++) {
    const who = units.speaker[i] ?? null;
    if (visible[i] && who !== null && named.has(who.toLowerCase())) {
      out[i] = 1;
      any = true;
    }
  }
  return any ? out : null;
}

function timeFeature(ranges: readonly DayRange[], units: UnitIndex, visible: Uint8Array): Uint8Array | null {
  if (ranges.length === 0) return null;
  const out = new Uint8Array(visible.length);
  let any = false;
  for (let i = 0; i < out.length; i++) {
    const days = units.days[i];
    if (visible[i] && days && overlaps(days, ranges)) {
      out[i] = 1;
      any = true;
    }
  }
  return any ? out : null;
}

/**
 * Cosine of `qv` with every visible chunk that has a vector of its length (windows and spans without
 * one: the mean of their turns' cosines), into `raw`, min-max normalised within each group into
 * `out`. Returns the chunks scored.
 */
function vectorSide(
  qv: Float32Array,
  index: ChunkIndex,
  units: UnitIndex,
  visible: Uint8Array,
  out: Float64Array,
  raw: Float64Array,
): number[] {
  const n = index.chunks.length;
  const lo = new Float64Array(GROUPS).fill(Number.POSITIVE_INFINITY);
  const hi = new Float64Array(GROUPS).fill(Number.NEGATIVE_INFINITY);
  const has: number[] = [];
  const take = (i: number, sim: number) => {
    const g = groupOf(units.kind[i]!);
    raw[i] = sim;
    has.push(i);
    if (sim < lo[g]!) lo[g] = sim;
    if (sim > hi[g]!) hi[g] = sim;
  };
  const own = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = index.vectors[i];
    if (!visible[i] || !v || v.length !== qv.length) continue;
    own[i] = 1;
    take(i, dot(qv, v));
  }
  for (let i = 0; i < n; i++) {
    const norm = units.meanNorm[i]!;
    if (norm === 0 || !visible[i]) continue;
    let sum = 0;
    for (let t = units.coverFrom[i]!; t <= units.coverTo[i]!; t++) if (own[t]) sum += raw[t]!;
    take(i, sum / norm);
  }
  for (const i of has) {
    const g = groupOf(units.kind[i]!);
    const span = hi[g]! - lo[g]!;
    out[i] = span > 0 ? (raw[i]! - lo[g]!) / span : 1;
  }
  return has;
}

export async function searchFeatures(
  store: MemoryStore,
  tenant: string,
  query: string,
  options: SearchOptions,
  useVectors: boolean,
): Promise<SearchFeatures> {
  const D = SEARCH_DEFAULTS;
  const pool = options.keywordPool ?? D.keywordPool;
  if (!Number.isInteger(pool) || pool < 1)
    throw new CtxError('invalid_config', 'must be a positive integer', { path: 'keywordPool' });
  const scope = scopeOf(options);
  const embedder = useVectors ? options.embedder : undefined;
  const index = await store.chunkIndex(tenant, embedder ? embedder.modelId : null);
  const units = unitIndexOf(index);
  const n = index.chunks.length;
  const visible = new Uint8Array(n);
  for (let i = 0; i < n; i++) visible[i] = inScope(index.chunks[i]!, scope) ? 1 : 0;

  // Vector side: cosine over every visible chunk with a vector, min-max within its group; the same
  // for the statement form of the query, embedded in the same call.
  const vec = new Float64Array(n);
  const vecRaw = new Float64Array(n);
  const vecRank = new Int32Array(n);
  let vectors = false;
  let statementVec: Float64Array | null = null;
  if (embedder) {
    const statementWeight = nonNegative(
      'statementWeight',
      options.statementWeight ?? SEARCH_DEFAULTS.statementWeight,
    );
    const named = [...namedSpeakers(query, units.speakers.keys())];
    const spelled = named.length === 1 ? units.speaker.find((s) => s?.toLowerCase() === named[0]) : undefined;
    // Conversations only: the form is the shape of a turn, and plain memories rank as before.
    const statement =
      statementWeight > 0 && units.speakers.size > 0 ? statementQuery(query, spelled ?? undefined) : query;
    const [qv, sv] = await embedQueries(embedder, statement === query ? [query] : [query, statement]);
    if (qv) {
      const has = vectorSide(qv, index, units, visible, vec, vecRaw);
      if (sv) {
        statementVec = new Float64Array(n);
        vectorSide(sv, index, units, visible, statementVec, new Float64Array(n));
      }
      // Ranks only for reciprocal-rank fusion (a sort of every chunk otherwise spent for nothing).
      if (options.fusion === 'rrf') {
        const next = new Int32Array(GROUPS);
        for (const i of has.sort((a, b) => vecRaw[b]! - vecRaw[a]!))
          vecRank[i] = ++next[groupOf(units.kind[i]!)]!;
      }
      vectors = has.length > 0;
    }
  }

  // Keyword side: stopwords dropped, stemmed by the store (FTS5 porter), over the group's best match.
  const key = new Float64Array(n);
  const keyRank = new Int32Array(n);
  const match = toFtsQuery(query, { dropStopwords: true });
  let hits: { i: number; s: number }[] = [];
  if (match !== '')
    hits = (await store.keywordRanks(tenant, match, scope, pool)).flatMap((h) => {
      const i = index.byId.get(h.id);
      return i === undefined || !visible[i] ? [] : [{ i, s: Math.max(0, -h.bm25) }];
    });
  if (hits.length === 0)
    hits = (await fallbackHits(store, tenant, query, scope, pool, options, D)).flatMap((h) => {
      const i = index.byId.get(h.chunk.id);
      return i === undefined || !visible[i] ? [] : [{ i, s: h.s }];
    });
  const top = new Float64Array(GROUPS);
  for (const h of hits) {
    const g = groupOf(units.kind[h.i]!);
    if (h.s > top[g]!) top[g] = h.s;
  }
  hits.sort((a, b) => b.s - a.s);
  const next = new Int32Array(GROUPS);
  for (const h of hits) {
    const g = groupOf(units.kind[h.i]!);
    key[h.i] = top[g]! > 0 ? h.s / top[g]! : 0;
    keyRank[h.i] = ++next[g]!;
  }

  const anchor =
    options.now !== undefined && Number.isFinite(options.now)
      ? dayOf(new Date(options.now).toISOString())
      : null;
  const when = asksForTime(query) ? units.hasTime.map((x, i) => (visible[i] ? x : 0)) : null;
  return {
    index,
    units,
    visible,
    key,
    keyRank,
    vec,
    vecRaw,
    vecRank,
    vectors,
    statementVec,
    several: units.speakers.size > 0 && asksForSeveral(query),
    speaker: speakerFeature(query, units, visible),
    time: timeFeature(timeRanges(query, anchor), units, visible),
    when: when?.some((x) => x === 1) ? when : null,
  };
}
