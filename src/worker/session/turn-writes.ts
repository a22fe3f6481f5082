/**
 * The proxy's turn writes a session object has started and a Worker has not collected yet. A turn's
 * context goes back to the Worker while its rows and state are still being written to D1; the Worker
 * sends the context upstream meanwhile and then collects the write's outcome (`proxyCommit`) before it
 * releases the answer.
 */
import { CtxError, isCtxError } from '../../core/index.ts';
import type { ProxyCommit } from '../proxy/proxy-session.ts';
import { type Outcome, outcome } from './wire.ts';

/** Writes kept uncollected at most (a Worker collects its own right away; one that failed never does). */
export const MAX_UNCOLLECTED_WRITES = 32;

export interface TurnWrites {
  /** Keeps `write` (under way) for call `callId`; a failure that is not a CtxError is a storage_error. */
  track(callId: string, write: Promise<ProxyCommit>): void;
  /** The outcome of call `callId`'s write once it settles; `not_found` when none is kept. */
  collect(callId: string): Promise<Outcome<ProxyCommit>>;
}

export function createTurnWrites(): TurnWrites {
  const writes = new Map<string, Promise<Outcome<ProxyCommit>>>();
  return {
    track(callId, write) {
      const settled = outcome(() =>
        write.catch((error: unknown) => {
          if (isCtxError(error)) throw error;
          console.error('ctxkit proxy: writing a turn failed:', error);
          throw new CtxError('storage_error', 'the turn could not be written', { cause: error });
        }),
      );
      writes.set(callId, settled);
      for (const id of writes.keys()) {
        if (writes.size <= MAX_UNCOLLECTED_WRITES) break;
        writes.delete(id);
      }
    },
    async collect(callId) {
      const write = writes.get(callId);
      if (!write)
        return {
          ok: false,
          error: { code: 'not_found', message: `no write of call ${callId} is known`, path: 'call' },
        };
      writes.delete(callId);
      return write;
    },
  };
}
