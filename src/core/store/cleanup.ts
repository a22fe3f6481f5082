/**
 * Periodic clean-up (000 §1.11, 002 §4.11): sessions idle for more than 30 days (by `lastActive`)
 * go with their logs; expired memories are pruned by consolidation.
 */
import { consolidateMemories } from './consolidate-store.ts';
import type { MemoryStore } from './memory-store.ts';
import type { SessionStore } from './session-store.ts';

export const SESSION_MAX_IDLE_DAYS = 30;

export interface CleanupOptions {
  now: number;
  /** @default 30 */
  maxIdleDays?: number;
  /** Limit to one tenant; memories are only consolidated when a tenant is given. */
  tenant?: string;
  sessions?: SessionStore;
  memories?: MemoryStore;
}

export async function runCleanup(options: CleanupOptions): Promise<{ sessions: number; memories: number }> {
  const cutoff = options.now - (options.maxIdleDays ?? SESSION_MAX_IDLE_DAYS) * 86_400_000;
  const sessions = options.sessions ? await options.sessions.cleanup(cutoff, options.tenant) : 0;
  const memories =
    options.memories && options.tenant !== undefined
      ? (await consolidateMemories(options.memories, options.tenant, { now: options.now })).length
      : 0;
  return { sessions, memories };
}
