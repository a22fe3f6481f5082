/**
 * The whole first-build path of 002's memory injection: up to 200 live memories of the project
 * (+ global, + the user's), the best 6 for the query, up to 3 recall fragments from the project's
 * other sessions, token-capped into a `MemoryBlock`; the memories that made it are marked surfaced
 * (the HEAD fix of SEED-RULES §6 #25). Use with `ensureMemoryBlock` so it runs once per session.
 */
import type { TokenCounter } from '../ports.ts';
import { buildMemoryBlock, type MemoryBlock } from './memory-block.ts';
import { selectMemories } from './memory-selector.ts';
import type { MemoryStore } from './memory-store.ts';
import type { RecallHit, SessionStore } from './session-store.ts';

export interface ComputeMemoryBlockOptions {
  memories: MemoryStore;
  /** Without it there is no session recall. */
  sessions?: SessionStore;
  tenant: string;
  project: string;
  userId?: string;
  sessionId: string;
  /** The user's first message (selection and recall query). */
  query: string;
  now: number;
  counter: TokenCounter;
  /** @default 6 */
  limit?: number;
  /** @default 1500 */
  maxTokens?: number;
}

export async function computeMemoryBlock(options: ComputeMemoryBlockOptions): Promise<MemoryBlock> {
  const pool = await options.memories.list(options.tenant, {
    project: options.project,
    ...(options.userId !== undefined ? { userId: options.userId } : {}),
    now: options.now,
    limit: 200,
  });
  const selected = selectMemories(pool, {
    query: options.query,
    now: options.now,
    limit: options.limit ?? 6,
  });
  const recall: RecallHit[] =
    options.sessions && options.query.trim() !== ''
      ? await options.sessions.recall(options.tenant, {
          project: options.project,
          excludeSession: options.sessionId,
          query: options.query,
          limit: 3,
        })
      : [];
  const block = buildMemoryBlock(selected, recall, {
    counter: options.counter,
    now: options.now,
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
  });
  if (block.memoryIds.length > 0)
    await options.memories.markSurfaced(options.tenant, block.memoryIds, options.now);
  return block;
}
