/**
 * What stubs and summaries say when the recall tools are on (`ctx.recall`): the ref of what they stand
 * for, as the call that gets it back (`reread('…')`), so that a model that never saw ctxkit uses it.
 * The same ref goes on the journal entries, and the archive stores the originals under it.
 */
import type { Message } from '../../messages/types.ts';
import { contentRef, rereadHint, spanRef } from '../../recall/ref.ts';
import type { JournalEntry, StageContext } from '../types.ts';

/** The ref of what a stub or summary stands for (one message, or the span of several), when recall is on. */
export function recallRef(
  ctx: Pick<StageContext, 'recall'>,
  messages: readonly Message[],
): string | undefined {
  if (!ctx.recall || messages.length === 0) return undefined;
  return messages.length === 1 ? contentRef(messages[0]!) : spanRef(messages);
}

/** `(whole: reread('…'))`-style line for a stub or summary, or '' without a ref. */
export function rereadNote(ref: string | undefined, what: string): string {
  return ref === undefined ? '' : `(${what}: ${rereadHint(ref)})`;
}

/** `; whole: reread('…')` to close a bracketed notice with, or '' without a ref. */
export function wholeSuffix(ref: string | undefined): string {
  return ref === undefined ? '' : `; whole: ${rereadHint(ref)}`;
}

/** A bracketed stub (`[…]`) with `; whole: reread('…')` before its closing bracket; as it is without a ref. */
export function closeWithRef(stub: string, ref: string | undefined): string {
  return ref === undefined || !stub.endsWith(']') ? stub : `${stub.slice(0, -1)}${wholeSuffix(ref)}]`;
}

/** The entries with `ref` set (the same entries without one). */
export function withRef<E extends JournalEntry>(entries: E[], ref: string | undefined): E[] {
  if (ref !== undefined) for (const e of entries) e.ref = ref;
  return entries;
}
