/**
 * The long-term memory port: typed memories (002) and indexed text chunks (000/004 files and
 * memories alike), searched by keyword (FTS5 BM25 or an equivalent) and by vector.
 */

export type MemoryType = 'project' | 'user' | 'decision' | 'compaction';
export type MemoryClass = 'priority' | 'durable' | 'working';

export const MEMORY_TYPES: readonly MemoryType[] = ['project', 'user', 'decision', 'compaction'];
export const MEMORY_CLASSES: readonly MemoryClass[] = ['priority', 'durable', 'working'];

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
  /** Chunks containing any of the substrings (CJK fallback: `LIKE %run%`). */
  substringSearch(
    tenant: string,
    runs: readonly string[],
    scope: MemoryScope,
    limit: number,
  ): Promise<ChunkRecord[]>;
  /** Chunks embedded by `model`, for brute-force cosine. */
  vectorChunks(tenant: string, model: string, scope: MemoryScope): Promise<ChunkRecord[]>;
  /** Markdown documents (worker/in-memory home of MEMORY.md and daily files). */
  readDocument(tenant: string, path: string): Promise<MemoryDocument | undefined>;
  writeDocument(tenant: string, path: string, content: string, at: number): Promise<void>;
  listDocuments(tenant: string, prefix?: string): Promise<MemoryDocument[]>;
}

/** `source` of the chunk that indexes a memory row. */
export function memorySource(id: string): string {
  return `memory:${id}`;
}

/** Whether a row with this project/user is visible under the scope. */
export function inScope(row: { project: string; userId: string }, scope: MemoryScope): boolean {
  const includeGlobal = scope.includeGlobal ?? true;
  if (scope.project !== undefined && row.project !== scope.project && !(includeGlobal && row.project === ''))
    return false;
  return row.userId === '' || row.userId === scope.userId;
}
