/**
 * The Durable Object's cache of its session: the info, the log rows and the state as last read from
 * or written to D1. D1 stays the system of record — the object is the session's only writer, so
 * after its own writes the cache is exact; a view older than `VIEW_TTL_MS` is read again (the
 * clean-up cron deletes idle sessions behind the object's back), and any failed write drops it.
 */
import {
  isCompactedRow,
  type Message,
  referencedSeqs,
  type SessionInfo,
  type SessionState,
  type StoredMessage,
} from '../../core/index.ts';

/** @default 30 s */
export const VIEW_TTL_MS = 30_000;
/** Logs longer than this are not kept in memory. @default 20000 rows */
export const VIEW_MAX_ROWS = 20_000;

export interface SessionView {
  info: SessionInfo;
  rows: StoredMessage[];
  state: SessionState;
  readAt: number;
}

export interface SessionCache {
  view?: SessionView | undefined;
}

export function freshView(cache: SessionCache | undefined, now: number): SessionView | undefined {
  const view = cache?.view;
  return view && now - view.readAt < VIEW_TTL_MS ? view : undefined;
}

export function rememberView(cache: SessionCache | undefined, view: SessionView): void {
  if (cache) cache.view = view.rows.length <= VIEW_MAX_ROWS ? view : undefined;
}

/** The rows `append` stored (same seqs, `compacted` false), and the session's new `lastSeq`. */
export function afterAppend(
  cache: SessionCache | undefined,
  messages: readonly Message[],
  firstSeq: number,
  now: number,
): void {
  const view = cache?.view;
  if (!view) return;
  const rows = [
    ...view.rows,
    ...messages.map((message, i) => ({ seq: firstSeq + i, message, createdAt: now, compacted: false })),
  ];
  const info = { ...view.info, lastSeq: firstSeq + messages.length - 1, lastActive: now };
  rememberView(cache, { ...view, info, rows });
}

/** As `setState` flags rows: at or before `throughSeq` and not referenced → compacted. */
export function afterSetState(cache: SessionCache | undefined, state: SessionState, now: number): void {
  const view = cache?.view;
  if (!view) return;
  const refs = state.working ? referencedSeqs(state.working) : undefined;
  const rows = view.rows.map((r) => {
    const compacted = isCompactedRow(r.seq, state.working, refs);
    return compacted === r.compacted ? r : { ...r, compacted };
  });
  rememberView(cache, { ...view, state, rows, info: { ...view.info, lastActive: now } });
}
