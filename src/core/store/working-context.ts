import { CtxError } from '../errors.ts';
import type { Message } from '../messages/types.ts';
import { INITIAL_STATE } from '../pipeline/types.ts';
import type { SessionState, StoredMessage, WorkingContext, WorkingItem } from './session-store.ts';
import { sameMessage } from './state-equality.ts';

export const EMPTY_SESSION_STATE: SessionState = {
  pipeline: INITIAL_STATE,
  working: null,
  memoryBlock: null,
};

/** The messages the agent currently sees: the working items, then every row after `throughSeq`. */
export function resolveWorkingContext(
  rows: readonly StoredMessage[],
  working: WorkingContext | null,
): Message[] {
  if (working === null) return rows.filter((r) => !r.compacted).map((r) => r.message);
  const bySeq = new Map(rows.map((r) => [r.seq, r.message]));
  const out: Message[] = [];
  for (const [i, item] of working.items.entries()) {
    if ('message' in item) {
      out.push(item.message);
      continue;
    }
    const m = bySeq.get(item.seq);
    if (!m)
      throw new CtxError('not_found', `log row seq ${item.seq} is missing`, { path: `working.items[${i}]` });
    out.push(m);
  }
  for (const r of rows) if (r.seq > working.throughSeq) out.push(r.message);
  return out;
}

/**
 * Turns the messages a pipeline run returned into a working context: messages that are log rows
 * (same id, same content) become `{ seq }` references, everything else is kept literally.
 */
export function toWorkingContext(
  rows: readonly StoredMessage[],
  messages: readonly Message[],
): WorkingContext {
  const byId = new Map(rows.map((r) => [r.message.id, r]));
  const items: WorkingItem[] = messages.map((m) => {
    const row = byId.get(m.id);
    return row && sameMessage(row.message, m) ? { seq: row.seq } : { message: m };
  });
  const throughSeq = rows.length === 0 ? 0 : rows[rows.length - 1]!.seq;
  return { throughSeq, items };
}

/** Seqs of the log rows the working context references (or all rows after `throughSeq`). */
export function referencedSeqs(working: WorkingContext): Set<number> {
  const out = new Set<number>();
  for (const item of working.items) if ('seq' in item) out.add(item.seq);
  return out;
}

/** Whether a row is compacted under the given working context. */
export function isCompactedRow(
  seq: number,
  working: WorkingContext | null,
  referenced?: Set<number>,
): boolean {
  if (working === null || seq > working.throughSeq) return false;
  return !(referenced ?? referencedSeqs(working)).has(seq);
}
