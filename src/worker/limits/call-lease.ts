/**
 * Proxied calls in flight, per session and per tenant: a call asks the tenant's object for a lease
 * while it reads and parses its body, waits for the answer before anything else runs (a refused call
 * writes no turn and never reaches the upstream), and gives the lease back once it has wholly ended —
 * its answer sent or its stream closed, cancelled or broken, the client gone, and every piece of
 * work it left running (the log of its answer) settled. Errors, timeouts and aborts end a call like a
 * success does, so each path releases.
 *
 * The lease is renewed every third of `IN_FLIGHT_LEASE_SECONDS` for as long as the call runs — while
 * it waits for its first byte and while its stream is relayed — and the renewal stops when the place
 * is given back. So a stream longer than the lease keeps being counted, and a call whose end is never
 * seen (its isolate crashed, the runtime dropped its work) is forgotten at most one lease after its
 * last renewal. A client that leaves mid-stream ends the call at once, whether the runtime reports it
 * (`request.signal`, the stream's `cancel()`) or not (the relay's stall watch, proxy/relay.ts): the
 * place comes back then, not when the lease runs out.
 */
import type { Env } from '../env.ts';
import { ID_PATTERN } from '../http/context.ts';
import { LIMIT_VARS, limitsBound, tenantLimits } from './limit-config.ts';
import { limitResponse } from './limit-response.ts';
import type { LeaseOutcome } from './tenant-object.ts';
import { tenantStub } from './tenant-stub.ts';

export interface LeaseContext {
  env: Env;
  tenant: string;
  request: Request;
  waitUntil(promise: Promise<unknown>): void;
  /**
   * Set by `withCallLease` for the call: resolves to the 429 to answer when the call was refused,
   * or to undefined once it holds its place. The call awaits it before it writes or calls upstream.
   */
  admitted?(): Promise<Response | undefined>;
}

/** A refused call is asked to come back in 1 s: a call in flight ends at an unknown time. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

function refused(
  path: string,
  got: Exclude<LeaseOutcome, { ok: true }>,
  recountMs: number,
  session?: string,
) {
  if (got.limit === 'storage')
    return limitResponse(path, {
      code: 'storage_quota_exceeded',
      message: `this tenant stores ${got.used} bytes, at its limit of ${got.max} (${LIMIT_VARS.storedBytes}); a call with a session stores its turn, so none is taken until data is deleted or the limit raised`,
      retryAfterSeconds: Math.ceil(recountMs / 1000),
      limit: { name: LIMIT_VARS.storedBytes, max: got.max, used: got.used },
    });
  const name = got.limit === 'session' ? LIMIT_VARS.inFlightPerSession : LIMIT_VARS.inFlightPerTenant;
  const who = got.limit === 'session' ? `session ${session}` : 'this tenant';
  return limitResponse(path, {
    code: 'too_many_in_flight',
    message: `${who} already has ${got.max} proxied calls in flight, its limit (${name}); retry when one ends`,
    retryAfterSeconds: IN_FLIGHT_RETRY_AFTER_SECONDS,
    limit: { name, max: got.max, used: got.max },
  });
}

/** Runs `call` holding a place among the tenant's (and its session's) calls in flight, or answers 429. */
export async function withCallLease<C extends LeaseContext>(
  ctx: C,
  call: (ctx: C) => Promise<Response>,
): Promise<Response> {
  if (!limitsBound(ctx.env)) return call(ctx);
  const limits = tenantLimits(ctx.env);
  const header = ctx.request.headers.get('x-ctxkit-session');
  // A bad session id is the call's own 400; it is counted for the tenant only until then.
  const session = header !== null && ID_PATTERN.test(header) ? header : undefined;
  const path = new URL(ctx.request.url).pathname;
  const stub = tenantStub(ctx.env, ctx.tenant);
  const lease = crypto.randomUUID();
  // Asked now, answered while the call reads and parses its body: the call awaits `admitted()`
  // before its first write or upstream byte, so the round trip to the tenant's object is hidden
  // behind work the call does anyway.
  const acquiring = stub.acquire({
    tenant: ctx.tenant,
    lease,
    session,
    perSession: limits.inFlightPerSession,
    perTenant: limits.inFlightPerTenant,
    leaseMs: limits.leaseMs,
    ...(session ? { storage: { cap: limits.storedBytes, recountMs: limits.recountMs } } : {}),
  });

  let pending = 0;
  let open = true;
  let released = false;
  let renewal: ReturnType<typeof setInterval> | undefined;
  const admitted = acquiring.then((got) => {
    if (!got.ok) return refused(path, got, limits.recountMs, session);
    if (!released)
      renewal = setInterval(
        () => void stub.renew(lease, limits.leaseMs).catch(() => undefined),
        Math.floor(limits.leaseMs / 3),
      );
    return undefined;
  });
  // A call that ends before it asks (its own 4xx) leaves the answer unread: not an unhandled rejection.
  admitted.catch(() => undefined);
  /** Gives the place back, once, however the call ended. */
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(renewal);
    ctx.waitUntil(
      acquiring
        .then((got) => (got.ok ? stub.release(lease) : undefined))
        .catch((e: unknown) => console.error('ctxkit limits: releasing a call failed:', e)),
    );
  };
  const settle = () => {
    if (!open && pending === 0) release();
  };
  const end = () => {
    open = false;
    settle();
  };
  const inner: C = {
    ...ctx,
    admitted: () => admitted,
    waitUntil(p: Promise<unknown>) {
      pending++;
      ctx.waitUntil(
        p.finally(() => {
          pending--;
          settle();
        }),
      );
    },
  };
  try {
    return await call(inner);
  } finally {
    // The answer is sent or its stream handed over: what still runs (the stream's relay and log) was
    // registered through `inner.waitUntil`, and the call ends when that settles.
    end();
  }
}
