/**
 * What a successful compaction writes to long-term memory (002 §4.7): the summary as a
 * `compaction` memory (title = first 80 chars, class `working`, expires after 14 days) and each
 * extracted memory (working ones expire after `max(1, expiresDays ?? 14)` days, others never).
 */
import type { ExtractedMemory, IdGenerator } from '../ports.ts';
import type { MemoryRecord } from './memory-store.ts';

const DAY = 86_400_000;

export interface CompactionMemoryContext {
  tenant: string;
  project?: string;
  userId?: string;
  now: number;
  ids: IdGenerator;
  /** @default 14 */
  summaryDays?: number;
}

export function compactionMemories(
  summary: string,
  extracted: readonly ExtractedMemory[],
  ctx: CompactionMemoryContext,
): MemoryRecord[] {
  const base = {
    tenant: ctx.tenant,
    project: ctx.project ?? '',
    userId: ctx.userId ?? '',
    pinned: false,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    lastSurfacedAt: null,
  };
  const out: MemoryRecord[] = [];
  const text = summary.trim();
  if (text !== '')
    out.push({
      ...base,
      id: ctx.ids.next('mem'),
      type: 'compaction',
      class: 'working',
      title: text.slice(0, 80),
      content: text,
      expiresAt: ctx.now + (ctx.summaryDays ?? 14) * DAY,
    });
  for (const m of extracted) {
    if (m.title.trim() === '' || m.content.trim() === '') continue;
    const cls = m.class ?? 'durable';
    const days = Math.min(30, Math.max(1, Math.floor(m.expiresDays ?? 14)));
    out.push({
      ...base,
      id: ctx.ids.next('mem'),
      type: m.type,
      class: cls,
      title: m.title.trim(),
      content: m.content.trim(),
      expiresAt: cls === 'working' ? ctx.now + days * DAY : null,
    });
  }
  return out;
}
