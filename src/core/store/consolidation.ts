/**
 * Consolidation after compaction (002 §4.11 with the recommended fix of SEED-RULES §6 #23):
 * expired memories are pruned and only the `keepCompaction` newest compaction memories are kept,
 * but pinned memories are never removed (and do not count against the cap).
 */
import type { MemoryRecord } from './memory-store.ts';

export interface ConsolidationOptions {
  now: number;
  /** @default 10 */
  keepCompaction?: number;
}

/** Ids to delete. */
export function planConsolidation(
  memories: readonly MemoryRecord[],
  options: ConsolidationOptions,
): string[] {
  const keep = options.keepCompaction ?? 10;
  const out: string[] = [];
  const live: MemoryRecord[] = [];
  for (const m of memories) {
    if (m.pinned) continue;
    if (m.expiresAt !== null && m.expiresAt <= options.now) out.push(m.id);
    else if (m.type === 'compaction') live.push(m);
  }
  live.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  for (const m of live.slice(keep)) out.push(m.id);
  return out;
}
