/**
 * How much a session's log may hold (`MAX_SESSION_BYTES`): checked before anything of an append is
 * written or, on the proxy, before the upstream is paid; a session past it refuses new content with a
 * 413 that names the bound. The log's size is read once from D1 (large messages at their whole size)
 * and then kept up to date by the session's object, its only writer; a failed write forgets it. The
 * answer to a call already paid for is logged even when it takes the session past its bound: the
 * next turn is refused instead.
 */
import { CtxError } from '../../core/index.ts';
import type { SqlSessionStore } from '../../db/sql/sql-session-store.ts';
import { BOUND_VARS } from '../service-bounds.ts';
import type { SessionKey } from './wire.ts';

export interface SessionSize {
  /** Throws `payload_too_large` when `incoming` more bytes would take the log past the bound. */
  admit(store: SqlSessionStore, key: SessionKey, incoming: number): Promise<void>;
  /** `bytes` were written to the log. */
  added(bytes: number): void;
  /** The size is no longer known (a failed write, a purge): read it again next time. */
  forget(): void;
}

export function createSessionSize(bound: number): SessionSize {
  let current: number | undefined;
  return {
    async admit(store, key, incoming) {
      current ??= await store.storedBytes(key.tenant, key.session);
      if (current + incoming <= bound) return;
      throw new CtxError(
        'payload_too_large',
        `session ${key.session} holds ${current} bytes; these ${incoming} would take it past its bound of ${bound} (${BOUND_VARS.sessionBytes}): start a new session, or compact and clear this one`,
        { path: 'messages' },
      );
    },
    added(bytes) {
      if (current !== undefined) current += bytes;
    },
    forget() {
      current = undefined;
    },
  };
}
