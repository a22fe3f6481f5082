/**
 * What the session functions work with, apart from them (`session-service.ts`, `session-memory.ts`
 * and the others import these types from here, so that none of them imports another in a circle):
 * the ports of a session run, and a session loaded from its stores.
 */
import type {
  Clock,
  Embedder,
  ExtractedReach,
  IdGenerator,
  MemoryStore,
  Message,
  Pipeline,
  SessionInfo,
  SessionState,
  SessionStore,
} from '../../core/index.ts';
import type { SessionBlobs } from '../blobs/session-blobs.ts';
import type { StorageQuota } from '../limits/storage-quota.ts';
import type { DocumentAppender } from './memory-documents.ts';
import type { SessionCache } from './session-cache.ts';
import type { SessionSize } from './session-size.ts';
import type { MemorySettings } from './settings.ts';

export interface SessionDeps {
  sessions: SessionStore;
  memories: MemoryStore;
  pipeline: Pipeline;
  clock: Clock;
  ids: IdGenerator;
  /** Atomic appends to the tenant's Markdown memory documents. */
  documents: DocumentAppender;
  /** Workers AI, when bound: vectors for memories and daily memory. */
  embedder?: Embedder | undefined;
  /** The Durable Object's cache of this session (absent: every call reads D1). */
  cache?: SessionCache;
  /** The session's memory injection setting (absent: nothing from other sessions). */
  memory?: MemorySettings | undefined;
  /** How far the memories ctxkit extracts reach (`MEMORY_EXTRACTED_REACH`). @default 'session' */
  memoryReach?: ExtractedReach | undefined;
  /** The tenant's stored-bytes quota (absent: no tenant limits). */
  quota?: StorageQuota | undefined;
  /** The session's size bound (absent: unbounded). */
  size?: SessionSize | undefined;
  /** The pipeline's spills into the blob store (absent: a spill failure is not told apart). */
  spills?: Pick<SessionBlobs, 'failures' | 'forMessage'> | undefined;
}

export interface Loaded {
  info: SessionInfo;
  rows: Awaited<ReturnType<SessionStore['messages']>>;
  state: SessionState;
  messages: Message[];
}
