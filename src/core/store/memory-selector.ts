/**
 * 002 `MemorySelector::select` (§4.11): score every non-expired memory by class, type, pin,
 * query match and age, keep the best `limit`.
 */
import type { MemoryRecord } from './memory-store.ts';

const CLASS_SCORE: Record<string, number> = { priority: 80, durable: 50, working: 20 };
const TYPE_SCORE: Record<string, number> = { decision: 35, project: 30, user: 25, compaction: 10 };
const DAY = 86_400_000;
const TERM = /[\p{L}\p{N}_./-]+/gu;

export interface SelectOptions {
  query?: string;
  now: number;
  /** @default 6 */
  limit?: number;
}

/** Identifier-like terms (contain `/ . _ -`) or words of ≥ 3 chars, from the lower-cased query. */
export function selectorTerms(query: string): string[] {
  const out: string[] = [];
  for (const t of query.toLowerCase().trim().match(TERM) ?? [])
    if (/[/._-]/.test(t) || [...t].length >= 3) out.push(t);
  return out;
}

export function scoreMemory(memory: MemoryRecord, query: string, now: number): number {
  let score = (CLASS_SCORE[memory.class] ?? 10) + (TYPE_SCORE[memory.type] ?? 5) + (memory.pinned ? 40 : 0);
  const q = query.toLowerCase().trim();
  const title = memory.title.toLowerCase();
  const content = memory.content.toLowerCase();
  if (q !== '') {
    if (title === q) score += 70;
    else if (title.includes(q)) score += 45;
    if (content.includes(q)) score += 20;
    for (const term of selectorTerms(q)) {
      const identifier = /[/._-]/.test(term);
      if (title.includes(term)) score += identifier ? 42 : 30;
      if (content.includes(term)) score += identifier ? 24 : 15;
    }
  }
  const updated = memory.updatedAt || memory.createdAt;
  if (memory.type === 'decision') {
    const age = now - updated;
    if (age <= 30 * DAY) score += 18;
    else if (age <= 180 * DAY) score += 10;
  }
  if (memory.class === 'working') {
    const age = now - (memory.lastSurfacedAt ?? updated);
    if (age >= 60 * DAY) score -= 35;
    else if (age >= 14 * DAY) score -= 20;
  }
  return score;
}

/** Best `limit` non-expired memories; ties by `updatedAt` (newest first), then id. */
export function selectMemories(memories: readonly MemoryRecord[], options: SelectOptions): MemoryRecord[] {
  const query = options.query ?? '';
  const limit = options.limit ?? 6;
  return memories
    .filter((m) => m.expiresAt === null || m.expiresAt > options.now)
    .map((m) => ({ m, s: scoreMemory(m, query, options.now) }))
    .sort((a, b) => b.s - a.s || b.m.updatedAt - a.m.updatedAt || (a.m.id < b.m.id ? 1 : -1))
    .slice(0, limit)
    .map((x) => x.m);
}
