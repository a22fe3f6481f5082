/**
 * A client that gives up before the answer begins and sends the same request again (as the SDKs do
 * after their timeout and a backoff of at least 0.5 s) leaves its first call behind: workerd says
 * nothing of a client that left before a response began (`request.signal` does not fire: checked on
 * workerd 1.20260426.1 through Miniflare and through a direct socket alike), so that call would hold
 * its place among the calls in flight, and its upstream request, until the first-byte timeout. The
 * retry is the sign: a call of a session still waiting for its first byte is replaced by the same
 * request (same tenant, session, route and body) arriving `RETRY_GAP_MS` or more after it — its
 * upstream request is cancelled, it is journaled 499, and its place comes back. The same request sent
 * several times at once (parallel samples of one turn) arrives within milliseconds and is left alone.
 *
 * Kept per isolate; a request may not touch another's I/O objects in workerd, so the replaced call
 * sees a flag at its own first-byte watch's next tick (within a second) and aborts itself. A retry that
 * reaches another isolate does not see it (on Cloudflare the request signal fires instead).
 */

interface Waiting {
  since: number;
  replaced: boolean;
}

const waiting = new Map<string, Waiting[]>();

/** How much later than a waiting call the same request must come to count as its retry. @default 500 ms, the SDKs' shortest backoff */
export const RETRY_GAP_MS = 500;

/** Keys remembered at most (the oldest forgotten first). */
export const MAX_WAITING = 10_000;

export interface FirstByteWait {
  /** A retry replaced this call: stop waiting for its answer. */
  replaced(): boolean;
  /** The answer began (or the call failed): it no longer waits. */
  done(): void;
}

/** Marks a call waiting for its first byte under `key`; an earlier one `RETRY_GAP_MS` older is replaced. */
export function awaitFirstByte(key: string, now = Date.now()): FirstByteWait {
  const mine: Waiting = { since: now, replaced: false };
  const list = waiting.get(key) ?? [];
  for (const w of list) if (now - w.since >= RETRY_GAP_MS) w.replaced = true;
  const kept = list.filter((w) => !w.replaced);
  kept.push(mine);
  waiting.delete(key);
  waiting.set(key, kept);
  if (waiting.size > MAX_WAITING) waiting.delete(waiting.keys().next().value!);
  return {
    replaced: () => mine.replaced,
    done() {
      const now = waiting.get(key)?.filter((w) => w !== mine);
      if (!now || now.length === 0) waiting.delete(key);
      else waiting.set(key, now);
    },
  };
}
