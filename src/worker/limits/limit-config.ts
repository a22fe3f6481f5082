/**
 * The tenant limits beside the request rate (docs/decisions/0009-service-limits.md): proxied calls
 * in flight per session and per tenant, and bytes stored per tenant. Each has a default, an
 * environment variable and real bounds; a value out of bounds is a configuration error naming the
 * variable (a 400 on every request until it is fixed, never a silently ignored limit).
 */
import { CtxError } from '../../core/index.ts';
import type { Env } from '../env.ts';

export interface TenantLimits {
  /** Proxied calls of one session at once. */
  inFlightPerSession: number;
  /** Proxied calls of one tenant at once, over all its sessions and stateless calls. */
  inFlightPerTenant: number;
  /**
   * How long a call's place outlives its last renewal, in ms. A running call renews it every third
   * of this, until it ends; a call whose end is never seen (a crashed isolate) is forgotten at most
   * this long after its last renewal.
   */
  leaseMs: number;
  /** Bytes a tenant may store (session logs, memories, spilled outputs) before new writes are refused. */
  storedBytes: number;
  /** How often the stored total is counted again from the stores, in ms. */
  recountMs: number;
  /** Sessions a tenant may hold (each a D1 row and a Durable Object) before new ones are refused. */
  sessions: number;
}

interface Bound {
  env: string;
  min: number;
  max: number;
  /** Environment unit → the field's unit. */
  scale: number;
  unit: string;
}

const BOUNDS = {
  inFlightPerSession: { env: 'MAX_IN_FLIGHT_PER_SESSION', min: 1, max: 1_000, scale: 1, unit: 'calls' },
  inFlightPerTenant: { env: 'MAX_IN_FLIGHT_PER_TENANT', min: 1, max: 100_000, scale: 1, unit: 'calls' },
  leaseMs: { env: 'IN_FLIGHT_LEASE_SECONDS', min: 2, max: 86_400, scale: 1000, unit: 'seconds' },
  storedBytes: { env: 'MAX_STORED_BYTES_PER_TENANT', min: 1_024, max: 2 ** 50, scale: 1, unit: 'bytes' },
  recountMs: { env: 'STORED_BYTES_RECOUNT_SECONDS', min: 1, max: 86_400, scale: 1000, unit: 'seconds' },
  sessions: { env: 'MAX_SESSIONS_PER_TENANT', min: 1, max: 100_000_000, scale: 1, unit: 'sessions' },
} as const satisfies Record<keyof TenantLimits, Bound>;

/**
 * @default 16 calls per session (an agent with parallel sub-agents), 256 per tenant, a 60-second
 * lease (renewed every 20 s while the call runs), 1 GiB stored per tenant (a tenth of a D1 database), counted again every 60 s,
 * 100,000 sessions per tenant (a team's agents opening 3,000 conversations a day, kept the 30 idle days of the clean-up)
 */
export const DEFAULT_LIMITS = {
  inFlightPerSession: 16,
  inFlightPerTenant: 256,
  leaseMs: 60_000,
  storedBytes: 1_073_741_824,
  recountMs: 60_000,
  sessions: 100_000,
} as const satisfies TenantLimits;

/** The variable names, for messages that tell an operator what to raise. */
export const LIMIT_VARS: Record<keyof TenantLimits, string> = Object.fromEntries(
  Object.entries(BOUNDS).map(([k, b]) => [k, b.env]),
) as Record<keyof TenantLimits, string>;

function parse(raw: string, b: Bound): number {
  const n = /^\d{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(n >= b.min && n <= b.max))
    throw new CtxError('invalid_config', `must be an integer from ${b.min} to ${b.max} (${b.unit})`, {
      path: b.env,
    });
  return n * b.scale;
}

/** The limits from the environment, each checked against its bounds. */
export function tenantLimits(env: Env): TenantLimits {
  const out: TenantLimits = { ...DEFAULT_LIMITS };
  for (const field of Object.keys(BOUNDS) as Array<keyof TenantLimits>) {
    const b = BOUNDS[field];
    const raw = env[b.env];
    if (raw === undefined || raw === '') continue;
    out[field] = parse(String(raw), b);
  }
  return out;
}

/** `TENANTS` bound: the limits are kept. Unbound (a deployment without the object): no such limits. */
export function limitsBound(env: Env): boolean {
  return typeof env.TENANTS?.idFromName === 'function';
}
