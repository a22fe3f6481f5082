/**
 * The client's side of an answer the proxy relays: the response body is the readable half of a
 * stream the proxy writes, and each write is awaited until the client took it. So the proxy tells a
 * client that is gone from one that is slow by what the runtime reports, never by a guess: gone is
 * `request.signal` aborting, the body being cancelled, or a write failing; slow is a write still
 * waiting — the upstream is not read meanwhile (backpressure reaches the provider), and nothing is
 * cut. Only a reader that takes nothing for `stallMs` (the call's idle timeout, minutes by default)
 * is let go: its stream still ends with the error event, queued for it should it read again.
 *
 * In workerd the stream is an `IdentityTransformStream`: when the client's socket is gone, a write to
 * it fails ("Network connection lost"). Through a JavaScript `TransformStream` workerd reports
 * nothing — no signal, no cancel, no failed write: it just stops reading (workerd 1.20260426.1, under
 * Miniflare and on a direct socket alike), which is why an earlier relay had to guess from a 2 s stall.
 */
import { SILENT, withinSilence } from '../http/silence.ts';

/** How a write ended: the client took it, left, or took nothing for `stallMs`. */
export type WriteOutcome = 'taken' | 'gone' | 'stalled';

export interface ClientStream {
  /** The response body. */
  readonly readable: ReadableStream<Uint8Array>;
  write(bytes: Uint8Array): Promise<WriteOutcome>;
  /** Resolves when the client is known to be gone (signal, cancel, a failed write). */
  readonly gone: Promise<'gone'>;
  isGone(): boolean;
  /** Ends the body after `last`, queued (a client not reading gets it if it reads again). */
  close(last?: Uint8Array): void;
  /** Ends the body with an error: nobody reads it any more. */
  abort(): void;
}

export interface ClientStreamOptions {
  /** The request's signal: its abort is the client leaving (where the runtime reports it). */
  signal?: AbortSignal | undefined;
  /** A write the client has not taken after this long (of this isolate running) counts as stalled. */
  stallMs: number;
}

/** workerd's byte stream whose writes fail when its reader (the client's socket) is gone. */
declare const IdentityTransformStream: (new () => TransformStream<Uint8Array, Uint8Array>) | undefined;

export function clientStream(o: ClientStreamOptions): ClientStream {
  const pipe =
    typeof IdentityTransformStream === 'function'
      ? new IdentityTransformStream()
      : new TransformStream<Uint8Array, Uint8Array>();
  const writer = pipe.writable.getWriter();
  let left = false;
  let onGone: (v: 'gone') => void = () => undefined;
  const gone = new Promise<'gone'>((resolve) => {
    onGone = resolve;
  });
  const leave = () => {
    if (left) return;
    left = true;
    onGone('gone');
  };
  if (o.signal?.aborted) leave();
  o.signal?.addEventListener('abort', leave, { once: true });
  // A cancelled body errors the writable side.
  writer.closed.catch(leave);
  return {
    readable: pipe.readable,
    gone,
    isGone: () => left,
    async write(bytes) {
      if (left) return 'gone';
      const taken = writer.write(bytes).then(
        () => 'taken' as const,
        () => {
          leave();
          return 'gone' as const;
        },
      );
      const r = await withinSilence(Promise.race([taken, gone]), o.stallMs);
      return r === SILENT ? 'stalled' : r;
    },
    close(last) {
      if (last) writer.write(last).catch(() => undefined);
      writer.close().catch(() => undefined);
    },
    abort() {
      leave();
      writer.abort(new Error('the client is gone')).catch(() => undefined);
    },
  };
}

/** Pieces a whole answer is written in (each taken before the next is written). */
const PIECE = 64 * 1024;

/**
 * A whole (non-streamed) answer as a body written piece by piece, so that whether its client took it
 * is known: `onEnd(true)` once every piece was taken, `onEnd(false)` when the client left or stalled
 * (a client that left before the answer began is seen at the first write that fails).
 */
export function deliverWhole(
  text: string,
  o: ClientStreamOptions & { waitUntil(p: Promise<unknown>): void; onEnd(delivered: boolean): void },
): ReadableStream<Uint8Array> {
  const client = clientStream(o);
  const bytes = new TextEncoder().encode(text);
  const pump = async () => {
    for (let at = 0; at < bytes.byteLength; at += PIECE) {
      const w = await client.write(bytes.subarray(at, at + PIECE));
      if (w !== 'taken') {
        client.abort();
        return o.onEnd(false);
      }
    }
    client.close();
    o.onEnd(!client.isGone());
  };
  o.waitUntil(pump());
  return client.readable;
}
