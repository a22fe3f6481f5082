/**
 * What a successful compaction writes to long-term memory (002 §4.7): the summary as a
 * `compaction` memory (title = first 80 chars, class `working`, expires after 14 days) and each
 * extracted memory (working ones expire after `max(1, expiresDays ?? 14)` days, others never).
 * With a `sessionId`, each record carries its provenance and stays with that session unless `reach`
 * widens it (`memory-provenance.ts`); without one (a library caller with no sessions), records are
 * shared in `project` as before.
 */
import type { Message } from '../messages/types.ts';
import type { ExtractedMemory, IdGenerator } from '../ports.ts';
import { type ExtractedReach, extractedScope, extractedSource, spanProvenance } from './memory-provenance.ts';
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
  /** The session compacted: records carry it and, unless `reach` widens them, stay with it. */
  sessionId?: string;
  /** What the compaction read (the context it started from): the records' provenance. @default [] */
  span?: readonly Message[];
  /** How far extracted records reach (tool-sourced ones never leave the session). @default 'session' */
  reach?: ExtractedReach;
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
  const span = spanProvenance(ctx.span ?? []);
  /** Provenance and scope of a record with this text (none without a session). */
  const placed = (content: string, summary: boolean) => {
    if (ctx.sessionId === undefined) return {};
    // A summary is the model's reading of the whole span, never the user's words.
    const source = summary ? (span.untrusted ? 'tool' : 'assistant') : extractedSource(content, span);
    const where = extractedScope(source, ctx.reach ?? 'session', base.project);
    return { source, sessionId: ctx.sessionId, ...where };
  };
  const out: MemoryRecord[] = [];
  const text = summary.trim();
  if (text !== '')
    out.push({
      ...base,
      ...placed(text, true),
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
      ...placed(m.content.trim(), false),
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
