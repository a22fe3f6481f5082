/**
 * The long-term memory port: typed memories (002) and indexed text chunks (000/004 files and
 * memories alike), searched by keyword (FTS5 BM25 or an equivalent) and by vector.
 */

export type MemoryType = 'project' | 'user' | 'decision' | 'compaction';
export type MemoryClass = 'priority' | 'durable' | 'working';

export const MEMORY_TYPES: readonly MemoryType[] = ['project', 'user', 'decision', 'compaction'];
export const MEMORY_CLASSES: readonly MemoryClass[] = ['priority', 'durable', 'working'];

/**
 * Where a memory's text came from: the user's own words, the assistant (a model's reading of a
 * conversation without outside content), tool output or other untrusted content (a model's reading of
 * a conversation that held some: what a tool returned may have steered it), or an import from outside
 * any session (a file, a bulk load, rows older than provenance).
 */
export type MemorySource = 'user' | 'assistant' | 'tool' | 'import';
export const MEMORY_SOURCES: readonly MemorySource[] = ['user', 'assistant', 'tool', 'import'];

/**
 * Who may see a memory: `session`: only the session it came from (`sessionId`); `shared`: the sessions
 * its `project` reaches (`''`: every project).
 */
export type MemoryVisibility = 'session' | 'shared';
export const MEMORY_VISIBILITIES: readonly MemoryVisibility[] = ['session', 'shared'];

export interface MemoryRecord {
  tenant: string;
  id: string;
  /** `''` = global (shared by every project). */
  project: string;
  /** `''` = shared by every user. */
  userId: string;
  type: MemoryType;
  class: MemoryClass;
  title: string;
  content: string;
  pinned: boolean;
  /** Ms since epoch; `null` = never expires. */
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  lastSurfacedAt: number | null;
  /** Provenance: where the text came from. @default 'user' (a memory written by the caller) */
  source?: MemorySource;
  /** The session it was made in (extracted by compaction); `''` when none. @default '' */
  sessionId?: string;
  /** Who may see it. @default 'shared' */
  scope?: MemoryVisibility;
}

/** The provenance fields of a record, with their defaults filled in. */
export function provenanceOf(m: Pick<MemoryRecord, 'source' | 'sessionId' | 'scope'>): {
  source: MemorySource;
  sessionId: string;
  scope: MemoryVisibility;
} {
  return { source: m.source ?? 'user', sessionId: m.sessionId ?? '', scope: m.scope ?? 'shared' };
}

/** A piece of indexed text: a chunk of a Markdown memory file, or a memory row (`source = memory:{id}`). */
export interface ChunkRecord {
  tenant: string;
  id: string;
  project: string;
  userId: string;
  /** A path (`MEMORY.md`, `memory/2026-01-31.md`) or `memory:{id}`. */
  source: string;
  startLine: number;
  endLine: number;
  text: string;
  /** `YYYY-MM-DD` for daily memory (decays); `null` otherwise. */
  date: string | null;
  embedding: number[] | null;
  /** Model id of the embedder that made `embedding`. */
  model: string | null;
}

/** Which rows a query sees: the project's and the global ones, the user's and the shared ones. */
export interface MemoryScope {
  /** Unset → every project. */
  project?: string;
  /** Include global (`project = ''`) rows. @default true */
  includeGlobal?: boolean;
  /** Unset → shared rows only. */
  userId?: string;
}

export interface ListMemoriesOptions extends MemoryScope {
  types?: readonly MemoryType[];
  /**
   * Only what this session may see: the shared rows in the scope, and its own session-scoped ones
   * (another session's `session` rows never). Unset → every row in the scope (the tenant's own view).
   */
  visibleTo?: string;
  /** Only rows made in this session (`sessionId`), whatever their scope. */
  fromSession?: string;
  /** Only rows of these sources. */
  sources?: readonly MemorySource[];
  /** Leave out rows with `expiresAt <= now`. */
  now?: number;
  /** @default 200 */
  limit?: number;
}

/** A keyword hit with the raw rank in SQLite's `bm25()` convention: negative, lower is better. */
export interface KeywordHit {
  chunk: ChunkRecord;
  bm25: number;
}

/** A tenant's chunks prepared for search; built by `buildChunkIndex`, read-only. */
export interface ChunkIndex {
  /** Ordered by source, then start line; `embedding` is left out (null): see `vectors`. */
  chunks: readonly ChunkRecord[];
  /** Unit-length vector of `chunks[i]` made by the index's model, or null. */
  vectors: readonly (Float32Array | null)[];
  /** Position of the previous / next chunk of the same source, or -1. */
  prev: Int32Array;
  next: Int32Array;
  /** Position in `chunks` by chunk id. */
  byId: ReadonlyMap<string, number>;
}

/** A keyword hit by chunk id, with the rank in SQLite's `bm25()` convention. */
export interface KeywordRank {
  id: string;
  bm25: number;
}

export interface MemoryDocument {
  path: string;
  content: string;
  updatedAt: number;
}

export interface MemoryStore {
  /** Inserts or replaces a memory and re-indexes it as the chunk `memory:{id}` (with the given vector). */
  put(memory: MemoryRecord, vector?: { embedding: number[]; model: string }): Promise<MemoryRecord>;
  get(tenant: string, id: string): Promise<MemoryRecord | undefined>;
  /** Newest `updatedAt` first. */
  list(tenant: string, options?: ListMemoriesOptions): Promise<MemoryRecord[]>;
  /** Deletes memories and their chunks; returns how many went. */
  delete(tenant: string, ids: readonly string[]): Promise<number>;
  /** Tenants holding memories with `expiresAt <= now` (the clean-up's work list), in order. */
  tenantsWithExpired(now: number): Promise<string[]>;
  markSurfaced(tenant: string, ids: readonly string[], at: number): Promise<void>;
  /** Replaces every chunk of `source` (within the scope of the given chunks' project/user). */
  replaceChunks(tenant: string, source: string, chunks: readonly ChunkRecord[]): Promise<void>;
  /** FTS over chunk text. `match` is an already escaped FTS5 query (see `toFtsQuery`). */
  keywordSearch(tenant: string, match: string, scope: MemoryScope, limit: number): Promise<KeywordHit[]>;
  /**
   * The same search as `keywordSearch`, returning chunk ids and ranks only (no rows to read): what
   * `searchMemory` uses with its chunk index.
   */
  keywordRanks(tenant: string, match: string, scope: MemoryScope, limit: number): Promise<KeywordRank[]>;
  /** Chunks containing any of the substrings (CJK fallback: `LIKE %run%`). */
  substringSearch(
    tenant: string,
    runs: readonly string[],
    scope: MemoryScope,
    limit: number,
  ): Promise<ChunkRecord[]>;
  /** Chunks embedded by `model`, for brute-force cosine. */
  vectorChunks(tenant: string, model: string, scope: MemoryScope): Promise<ChunkRecord[]>;
  /**
   * Every chunk of the tenant (all scopes) with the vectors of `model` decoded once, as unit-length
   * Float32 (see `buildChunkIndex`). Stores keep it in memory and hand out the same object until the
   * tenant's chunks change, so a search does not re-read or re-decode vectors.
   */
  chunkIndex(tenant: string, model: string | null): Promise<ChunkIndex>;
  /** Markdown documents (worker/in-memory home of MEMORY.md and daily files). */
  readDocument(tenant: string, path: string): Promise<MemoryDocument | undefined>;
  writeDocument(tenant: string, path: string, content: string, at: number): Promise<void>;
  listDocuments(tenant: string, prefix?: string): Promise<MemoryDocument[]>;
}

/** `source` of the chunk that indexes a memory row. */
export function memorySource(id: string): string {
  return `memory:${id}`;
}

/** Whether a memory passes the provenance filters of a listing (`visibleTo`, `fromSession`, `sources`). */
export function passesProvenance(m: MemoryRecord, options: ListMemoriesOptions): boolean {
  const p = provenanceOf(m);
  if (options.visibleTo !== undefined && p.scope === 'session' && p.sessionId !== options.visibleTo)
    return false;
  if (options.fromSession !== undefined && p.sessionId !== options.fromSession) return false;
  return options.sources === undefined || options.sources.includes(p.source);
}

/** Whether a row with this project/user is visible under the scope. */
export function inScope(row: { project: string; userId: string }, scope: MemoryScope): boolean {
  const includeGlobal = scope.includeGlobal ?? true;
  if (scope.project !== undefined && row.project !== scope.project && !(includeGlobal && row.project === ''))
    return false;
  return row.userId === '' || row.userId === scope.userId;
}

/**
 * Builds a `ChunkIndex` from store rows (`parts` gives each row's chunk and its stored vector):
 * chunks ordered by source and line, vectors of `model` as unit-length Float32Array (only those
 * are decoded), neighbour links within each source.
 */
export function buildChunkIndex<T>(
  rows: readonly T[],
  model: string | null,
  parts: (row: T) => { chunk: ChunkRecord; vector: ArrayLike<number> | null },
): ChunkIndex {
  const items = rows.map(parts);
  items.sort((a, b) =>
    a.chunk.source < b.chunk.source
      ? -1
      : a.chunk.source > b.chunk.source
        ? 1
        : a.chunk.startLine - b.chunk.startLine || a.chunk.endLine - b.chunk.endLine,
  );
  const chunks: ChunkRecord[] = [];
  const vectors: (Float32Array | null)[] = [];
  const prev = new Int32Array(items.length).fill(-1);
  const next = new Int32Array(items.length).fill(-1);
  const byId = new Map<string, number>();
  for (const [i, { chunk, vector: raw }] of items.entries()) {
    let vector: Float32Array | null = null;
    if (model !== null && chunk.model === model && raw && raw.length > 0) {
      vector = Float32Array.from(raw);
      let norm = 0;
      for (let d = 0; d < vector.length; d++) norm += vector[d]! * vector[d]!;
      norm = Math.sqrt(norm);
      if (norm > 0) for (let d = 0; d < vector.length; d++) vector[d]! /= norm;
      else vector = null;
    }
    // Frozen: hits hand these out, and the index is shared until the next write.
    chunks.push(Object.freeze({ ...chunk, embedding: null }));
    vectors.push(vector);
    byId.set(chunk.id, i);
    if (i > 0 && items[i - 1]!.chunk.source === chunk.source) {
      prev[i] = i - 1;
      next[i - 1] = i;
    }
  }
  return { chunks, vectors, prev, next, byId };
}
