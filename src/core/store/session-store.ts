/**
 * The session store port: a full, append-only message log per session, plus the session state
 * (pipeline state, the working context the agent currently sees, the frozen memory block).
 * Compaction never deletes the log; it only replaces the working context.
 */
import type { Message } from '../messages/types.ts';
import type { ContextState } from '../pipeline/engine/context.ts';
import type { PipelineState } from '../pipeline/types.ts';
import type { MemoryBlock } from './memory-block-types.ts';

export interface SessionInfo {
  tenant: string;
  id: string;
  /** Project the session belongs to; `''` when none. */
  project: string;
  title: string | null;
  /** Ms since epoch. */
  createdAt: number;
  /** Ms since epoch of the last append or state change. */
  lastActive: number;
  /** Seq of the newest log row; 0 when the log is empty. */
  lastSeq: number;
}

export interface StoredMessage {
  seq: number;
  message: Message;
  createdAt: number;
  /** True when the row is no longer part of the working context (it stays in the log). */
  compacted: boolean;
}

/** A working-context item: a log row by seq, or a message ctxkit made (summary, placeholder). */
export type WorkingItem = { seq: number } | { message: Message };

/**
 * What the agent sees: `items` stand for the log up to `throughSeq`; every row after it is
 * visible as it is. `null` working context = the whole (non-compacted) log.
 */
export interface WorkingContext {
  throughSeq: number;
  items: WorkingItem[];
}

export interface SessionState {
  pipeline: PipelineState;
  working: WorkingContext | null;
  /** Memories + recall computed on the first prompt build, frozen until compaction clears it. */
  memoryBlock: MemoryBlock | null;
  /** An incremental context kept for this conversation (`saveContext`); absent otherwise. */
  context?: ContextState;
}

export interface CreateSessionInput {
  tenant: string;
  project?: string;
  id?: string;
  title?: string;
}

export interface AppendOptions {
  /** The `lastSeq` the caller last saw; a different value in the store throws `CtxError('conflict')`. */
  expectedSeq?: number;
}

export interface ListSessionsOptions {
  project?: string;
  /** @default 50 */
  limit?: number;
}

export interface ReadMessagesOptions {
  /** Only rows with `seq > afterSeq`. */
  afterSeq?: number;
  /** @default true */
  includeCompacted?: boolean;
}

export interface ClearOptions {
  /** Also delete the log rows (the seq counter keeps counting). @default false */
  purge?: boolean;
}

export interface RecallQuery {
  project: string;
  /** The current session, left out of the results. */
  excludeSession: string;
  query: string;
  /** @default 3 */
  limit?: number;
}

export interface RecallHit {
  sessionId: string;
  title: string | null;
  role: string;
  text: string;
  seq: number;
}

export interface SessionStore {
  create(input: CreateSessionInput): Promise<SessionInfo>;
  get(tenant: string, id: string): Promise<SessionInfo | undefined>;
  /** Newest activity first. */
  list(tenant: string, options?: ListSessionsOptions): Promise<SessionInfo[]>;
  /** Appends rows `lastSeq+1…`; returns the new `lastSeq`. Throws `not_found` / `conflict`. */
  append(tenant: string, id: string, messages: readonly Message[], options?: AppendOptions): Promise<number>;
  messages(tenant: string, id: string, options?: ReadMessagesOptions): Promise<StoredMessage[]>;
  getState(tenant: string, id: string): Promise<SessionState>;
  /** Saves the state; rows at or before `working.throughSeq` not referenced by it are flagged compacted. */
  setState(tenant: string, id: string, state: SessionState): Promise<void>;
  /** Resets the working context (the agent starts afresh); the log is kept unless `purge`. */
  clear(tenant: string, id: string, options?: ClearOptions): Promise<void>;
  delete(tenant: string, id: string): Promise<boolean>;
  /** Deletes sessions (and their logs) whose `lastActive < idleBefore`; all tenants unless one is given. */
  cleanup(idleBefore: number, tenant?: string): Promise<number>;
  /** Sessions of every tenant active at or after `since` (the daily summary's work list), by tenant and id. */
  active(since: number): Promise<Array<{ tenant: string; id: string }>>;
  /** Full-text search over other sessions' user/assistant text in the same project. */
  recall(tenant: string, query: RecallQuery): Promise<RecallHit[]>;
}
