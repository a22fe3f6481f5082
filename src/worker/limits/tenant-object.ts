/**
 * One Durable Object per tenant (`TENANTS`, `idFromName(tenant)`): the counters of the tenant's
 * limits that must be exact across isolates (docs/decisions/0009-service-limits.md).
 *
 * - **Calls in flight**, per session and per tenant, as leases in the object's SQLite storage: a
 *   call takes one before it reaches its session or the upstream and gives it back when it ends.
 *   Both limits are checked in one step, so two calls never both take the last place. A lease whose
 *   call never gives back (its isolate died) expires `leaseMs` after its last renewal. Kept in storage, not in
 *   memory, so an object evicted between a call's start and end still counts it.
 * - **Stored bytes**: the total counted from D1 and R2 (`stored-bytes.ts`) at most every
 *   `recountMs`, plus the bytes of the writes let through since; a write that would pass the cap is
 *   refused. The first count is awaited; later ones run while the last total is used.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env.ts';
import { storedBytes } from './stored-bytes.ts';

export interface LeaseRequest {
  tenant: string;
  lease: string;
  /** The call's session; absent for a stateless call (counted for the tenant only). */
  session?: string | undefined;
  perSession: number;
  perTenant: number;
  leaseMs: number;
  /** Also refuse when the tenant stores `storedBytes` or more (a session call writes its turn). */
  storage?: { cap: number; recountMs: number } | undefined;
}

export type LeaseOutcome =
  | { ok: true }
  | { ok: false; limit: 'session' | 'tenant'; max: number }
  | { ok: false; limit: 'storage'; max: number; used: number };

export interface ReserveRequest {
  tenant: string;
  bytes: number;
  cap: number;
  recountMs: number;
}

export type ReserveOutcome = { ok: true; used: number } | { ok: false; used: number; max: number };

export interface TenantUsage {
  inFlight: number;
  sessions: Record<string, number>;
  stored: { bytes: number; countedAt: number };
}

export class TenantObject extends DurableObject<Env> {
  private counted: { bytes: number; at: number } | undefined;
  /** Bytes let through since the last count started. */
  private added = 0;
  private recount: Promise<void> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS leases (id TEXT PRIMARY KEY, session TEXT NOT NULL, until INTEGER NOT NULL)',
    );
    ctx.storage.sql.exec('CREATE INDEX IF NOT EXISTS leases_until ON leases (until)');
  }

  async acquire(r: LeaseRequest): Promise<LeaseOutcome> {
    if (r.storage) {
      const used = await this.used(r.tenant, r.storage.recountMs);
      if (used >= r.storage.cap) return { ok: false, limit: 'storage', max: r.storage.cap, used };
    }
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM leases WHERE until < ?', now);
    const session = r.session ?? '';
    const row = sql
      .exec<{ total: number; mine: number }>(
        'SELECT COUNT(*) AS total, COALESCE(SUM(session = ?), 0) AS mine FROM leases',
        session,
      )
      .one();
    if (row.total >= r.perTenant) return { ok: false, limit: 'tenant', max: r.perTenant };
    if (session !== '' && row.mine >= r.perSession) return { ok: false, limit: 'session', max: r.perSession };
    sql.exec(
      'INSERT OR REPLACE INTO leases (id, session, until) VALUES (?, ?, ?)',
      r.lease,
      session,
      now + r.leaseMs,
    );
    return { ok: true };
  }

  /** Keeps a running call's place for another `leaseMs`. */
  async renew(lease: string, leaseMs: number): Promise<void> {
    this.ctx.storage.sql.exec('UPDATE leases SET until = ? WHERE id = ?', Date.now() + leaseMs, lease);
  }

  async release(lease: string): Promise<void> {
    this.ctx.storage.sql.exec('DELETE FROM leases WHERE id = ?', lease);
  }

  /** Lets `bytes` through unless the tenant would then store more than `cap`. */
  async reserve(r: ReserveRequest): Promise<ReserveOutcome> {
    const used = await this.used(r.tenant, r.recountMs);
    if (used + r.bytes > r.cap) return { ok: false, used, max: r.cap };
    this.added += r.bytes;
    return { ok: true, used: used + r.bytes };
  }

  async usage(tenant: string, recountMs: number): Promise<TenantUsage> {
    const stored = await this.used(tenant, recountMs);
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM leases WHERE until < ?', Date.now());
    const sessions: Record<string, number> = {};
    let inFlight = 0;
    for (const row of sql.exec<{ session: string; n: number }>(
      'SELECT session, COUNT(*) AS n FROM leases GROUP BY session',
    )) {
      inFlight += row.n;
      if (row.session !== '') sessions[row.session] = row.n;
    }
    return { inFlight, sessions, stored: { bytes: stored, countedAt: this.counted?.at ?? 0 } };
  }

  /** The counted total plus what was let through since; counts again when the count is stale. */
  private async used(tenant: string, recountMs: number): Promise<number> {
    const stale = !this.counted || Date.now() - this.counted.at >= recountMs;
    if (stale && !this.recount) {
      const before = this.added;
      const at = Date.now();
      this.recount = storedBytes(this.env, tenant)
        .then((bytes) => {
          this.counted = { bytes, at };
          // What was let through while counting may be in the count or not: kept, to err on the safe side.
          this.added -= before;
        })
        .finally(() => {
          this.recount = undefined;
        });
      // A failed recount keeps the last total; the first one fails the request that awaits it.
      this.recount.catch((e: unknown) => console.error('ctxkit limits: counting stored bytes failed:', e));
    }
    if (!this.counted && this.recount) await this.recount;
    return (this.counted?.bytes ?? 0) + this.added;
  }
}
