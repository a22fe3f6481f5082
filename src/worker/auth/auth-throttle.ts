/**
 * Throttling of failed authentication (docs/service.md, "API keys"): within a minute, at most
 * `AUTH_FAILURES_PER_ADDRESS` failures from one client address (`CF-Connecting-IP`) and
 * `AUTH_FAILURES_PER_KEY` for one key id (`ctx_<id>_…` with a wrong secret). Past either, requests from
 * that address or with that key id get 429 with `Retry-After` until the minute ends, without a D1
 * lookup — except a key this isolate verified within the auth cache's minute, so that a client whose
 * own key works is not locked out by someone guessing from behind the same address or at its id.
 *
 * Counted per isolate (exact under `npm start`, which runs one); when the `AUTH_FAILURE_LIMITER`
 * binding is bound (`[[ratelimits]]`), each failure from an address is also counted there, across
 * the isolates of a location, and an isolate that learns an address is over blocks it too.
 */
import { CtxError } from '../../core/index.ts';
import type { Env } from '../env.ts';
import type { RateLimiter } from './rate-limits.ts';

/** @default 100 failures a minute from one address, 20 for one key id */
export const DEFAULT_AUTH_FAILURES = { perAddress: 100, perKey: 20 } as const;
export const AUTH_WINDOW_MS = 60_000;
/** Addresses and key ids tracked per isolate; the oldest windows go first. */
const MAX_TRACKED = 10_000;

const VARS = { perAddress: 'AUTH_FAILURES_PER_ADDRESS', perKey: 'AUTH_FAILURES_PER_KEY' } as const;

export interface AuthFailureLimits {
  perAddress: number;
  perKey: number;
}

export function authFailureLimits(env: Env): AuthFailureLimits {
  const out: AuthFailureLimits = { ...DEFAULT_AUTH_FAILURES };
  for (const field of ['perAddress', 'perKey'] as const) {
    const raw = env[VARS[field]];
    if (raw === undefined || raw === '') continue;
    const n = /^\d{1,7}$/.test(String(raw).trim()) ? Number(String(raw).trim()) : Number.NaN;
    if (!(n >= 1 && n <= 1_000_000))
      throw new CtxError('invalid_config', 'must be an integer from 1 to 1000000 (failures a minute)', {
        path: VARS[field],
      });
    out[field] = n;
  }
  return out;
}

interface Window {
  start: number;
  failures: number;
}

/** Failure counts by `a:<address>` / `k:<key id>`, in the minute they started. */
const windows = new Map<string, Window>();

function windowOf(id: string, now: number): Window {
  let w = windows.get(id);
  if (!w || now - w.start >= AUTH_WINDOW_MS) {
    w = { start: now, failures: 0 };
    windows.delete(id);
    if (windows.size >= MAX_TRACKED) windows.delete(windows.keys().next().value!);
    windows.set(id, w);
  }
  return w;
}

/** What a request is throttled on, with the seconds until its minute ends; undefined when it is not. */
export interface Throttled {
  on: 'address' | 'key';
  limit: number;
  name: string;
  retryAfterSeconds: number;
}

function over(id: string, limit: number, now: number): number | undefined {
  const w = windows.get(id);
  if (!w || now - w.start >= AUTH_WINDOW_MS || w.failures < limit) return undefined;
  return Math.max(1, Math.ceil((w.start + AUTH_WINDOW_MS - now) / 1000));
}

export function throttled(
  limits: AuthFailureLimits,
  address: string,
  keyId: string | undefined,
  now = Date.now(),
): Throttled | undefined {
  const byAddress = address === '' ? undefined : over(`a:${address}`, limits.perAddress, now);
  if (byAddress !== undefined)
    return { on: 'address', limit: limits.perAddress, name: VARS.perAddress, retryAfterSeconds: byAddress };
  const byKey = keyId === undefined ? undefined : over(`k:${keyId}`, limits.perKey, now);
  if (byKey !== undefined)
    return { on: 'key', limit: limits.perKey, name: VARS.perKey, retryAfterSeconds: byKey };
  return undefined;
}

function limiter(value: unknown): RateLimiter | undefined {
  return typeof (value as RateLimiter | undefined)?.limit === 'function' ? (value as RateLimiter) : undefined;
}

/** Counts one failed authentication from `address`, with `keyId` when the key was well formed. */
export async function recordAuthFailure(
  env: Env,
  limits: AuthFailureLimits,
  address: string,
  keyId: string | undefined,
  now = Date.now(),
): Promise<void> {
  if (address !== '') {
    const w = windowOf(`a:${address}`, now);
    w.failures++;
    const shared = limiter(env.AUTH_FAILURE_LIMITER);
    if (shared && !(await shared.limit({ key: `auth-failure:${address}` })).success)
      w.failures = Math.max(w.failures, limits.perAddress);
  }
  if (keyId !== undefined) windowOf(`k:${keyId}`, now).failures++;
}

/** Forgets every count (tests). */
export function resetAuthThrottle(): void {
  windows.clear();
}
