/**
 * Proxied calls in flight, per session and per tenant: a call takes a lease from the tenant's object
 * before anything else runs (a refused call reads no body, writes no turn and never reaches the
 * upstream) and gives it back once it has wholly ended — its answer sent or its stream closed,
 * cancelled or broken, the client gone, and every piece of work it left running (the log of its
 * answer) settled. Errors, timeouts and aborts end a call like a success does, so each path releases.
 *
 * Until its answer begins, the call renews its lease every third of `IN_FLIGHT_LEASE_SECONDS` (a
 * first byte may take up to the hour `x-ctxkit-first-byte-timeout-ms` allows). From then on the
 * lease runs out on its own: a call whose end is never seen (its isolate crashed) is forgotten at
 * most that long after its answer began, and so is a stream that outlasts it. No timer runs after the
 * answer is handed over: a pending timer keeps workerd from cancelling the stream of a client that
 * went away (under Miniflare, where `request.signal` does not fire, that cancel is how the relay
 * learns of the disconnect), and would hold the place and the upstream open.
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
  const got = await stub.acquire({
    tenant: ctx.tenant,
    lease,
    session,
    perSession: limits.inFlightPerSession,
    perTenant: limits.inFlightPerTenant,
    leaseMs: limits.leaseMs,
    ...(session ? { storage: { cap: limits.storedBytes, recountMs: limits.recountMs } } : {}),
  });
  if (!got.ok) return refused(path, got, limits.recountMs, session);

  let pending = 0;
  let open = true;
  const renewal = setInterval(
    () => void stub.renew(lease, limits.leaseMs).catch(() => undefined),
    Math.floor(limits.leaseMs / 3),
  );
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    ctx.waitUntil(
      stub.release(lease).catch((e: unknown) => console.error('ctxkit limits: releasing a call failed:', e)),
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
    clearInterval(renewal);
    // The answer is sent or its stream handed over: what still runs (the stream's relay and log) was
    // registered through `inner.waitUntil`, and the call ends when that settles.
    end();
  }
}
