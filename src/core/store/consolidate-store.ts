import { planConsolidation } from './consolidation.ts';
import type { MemoryStore } from './memory-store.ts';

/**
 * Runs consolidation on a store for one project (its rows and the global ones): prunes expired
 * memories and all but the 10 newest compaction memories, never a pinned one. Returns the ids removed.
 */
export async function consolidateMemories(
  store: MemoryStore,
  tenant: string,
  options: { now: number; project?: string; keepCompaction?: number },
): Promise<string[]> {
  const scope = options.project === undefined ? {} : { project: options.project };
  const all = await store.list(tenant, { ...scope, limit: Number.MAX_SAFE_INTEGER });
  const plan = planConsolidation(
    all,
    options.keepCompaction === undefined
      ? { now: options.now }
      : { now: options.now, keepCompaction: options.keepCompaction },
  );
  if (plan.length > 0) await store.delete(tenant, plan);
  return plan;
}
