/**
 * Sessions per tenant (docs/service.md, "Limits"): each session is a D1 row and a Durable Object, and
 * nothing else bounded how many one key could open (an id per request, or a proxied call per
 * `x-ctxkit-session`). A new session asks the tenant's object for a place before anything of it is
 * stored and is refused with a 429 naming `MAX_SESSIONS_PER_TENANT` when the tenant holds that many
 * already; existing sessions are untouched. A create that fails after its place was given, and a
 * deleted session, give the place back; the idle clean-up's deletions are seen at the next count.
 */
import type { Env } from '../env.ts';
import { LIMIT_VARS, limitsBound, tenantLimits } from './limit-config.ts';
import { QuotaError } from './quota-error.ts';
import { tenantStub } from './tenant-stub.ts';

/** Runs `create` holding a place for one more session of `tenant`, given back when it fails. */
export async function withSessionPlace<T>(env: Env, tenant: string, create: () => Promise<T>): Promise<T> {
  if (!limitsBound(env)) return create();
  const limits = tenantLimits(env);
  const stub = tenantStub(env, tenant);
  const got = await stub.admitSession({ tenant, cap: limits.sessions, recountMs: limits.recountMs });
  if (!got.ok) {
    const name = LIMIT_VARS.sessions;
    throw new QuotaError(
      `this tenant holds ${got.used} sessions, its limit (${name} ${got.max}): no new session is created until one is deleted or the limit raised; existing sessions work as before`,
      { name, max: got.max, used: got.used },
      Math.ceil(limits.recountMs / 1000),
    );
  }
  try {
    return await create();
  } catch (error) {
    await stub.sessionGone(tenant).catch(() => undefined);
    throw error;
  }
}

/** A session was deleted: its place is free at once (not only at the next count). */
export async function sessionDeleted(env: Env, tenant: string): Promise<void> {
  if (limitsBound(env)) await tenantStub(env, tenant).sessionGone(tenant);
}
