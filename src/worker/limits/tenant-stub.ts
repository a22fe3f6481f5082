/**
 * The tenant's Durable Object, as the Worker calls it: named by the tenant alone, so every isolate
 * and location counts the tenant's calls and bytes in the one object. Typed as the plain method set
 * of `TenantObject` (as `session/stub.ts` does for the session object).
 */
import type { Env } from '../env.ts';
import type { TenantObject } from './tenant-object.ts';

export type TenantApi = Pick<
  TenantObject,
  | 'acquire'
  | 'renew'
  | 'release'
  | 'reserve'
  | 'charge'
  | 'admitSession'
  | 'sessionGone'
  | 'recountNow'
  | 'setCaps'
  | 'usage'
  | 'tally'
>;

export function tenantStub(env: Env, tenant: string): TenantApi {
  const ns = env.TENANTS!;
  return ns.get(ns.idFromName(tenant)) as unknown as TenantApi;
}
