/**
 * One Durable Object per tenant (`TENANTS`, `idFromName(tenant)`): the counters of the tenant's
 * limits that must be exact across isolates (docs/decisions/0009-service-limits.md).
 *
 * - **Calls in flight**, per session and per tenant, as leases: a call takes one before it reaches
 *   its session or the upstream and gives it back when it ends. Both limits are checked in one step,
 *   so two calls never both take the last place. A lease whose call never gives it back (its isolate
 *   died) expires `leaseMs` after its last renewal. Leases are kept in memory and mirrored in the
 *   object's storage, read back when it starts, so an object evicted between a call's start and end
 *   still counts it; the mirror's writes do not hold the answer back.
 * - **Stored bytes**: the total counted from D1 and R2 (`stored-bytes.ts`) at most every
 *   `recountMs`, plus the bytes of the writes let through since; a write that would pass the cap is
 *   refused. The first count is awaited; later ones run while the last total is used.
 * - **Sessions**: counted from D1 the same way (at most every `recountMs`, plus the sessions admitted
 *   and deleted since); a new session that would pass the cap is refused, so two creates at once
 *   never both take the last place.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Usage } from '../../core/index.ts';
import type { Env } from '../env.ts';
import { StaleCount } from './stale-count.ts';
import { sessionCount, storedBytes } from './stored-bytes.ts';
import { countCall, type StoredTally, storedTally, type TokenTally } from './token-tally.ts';

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

export interface AdmitSessionRequest {
  tenant: string;
  cap: number;
  recountMs: number;
}

export interface TenantUsage {
  inFlight: number;
  sessions: Record<string, number>;
  stored: { bytes: number; countedAt: number };
  /** The tenant's sessions (D1 rows), as last counted plus those admitted and deleted since. */
  sessionCount: number;
  /** The operator's caps for this tenant, over the environment's. */
  caps: TenantCaps;
  /** What the upstream reported on the tenant's proxied calls (token-tally.ts). */
  tokens: TokenTally;
}

/** Caps an operator sets for one tenant (`PUT /v1/admin/tenants/:tenant/limits`); absent: the environment's. */
export interface TenantCaps {
  storedBytes?: number;
  sessions?: number;
}

interface Lease {
  session: string;
  until: number;
}

const LEASE = 'lease:';
const TOKENS = 'tokens';
const CAPS = 'caps';

export class TenantObject extends DurableObject<Env> {
  /** The leases, mirrored in storage (`lease:<id>`) and read back when the object starts. */
  private readonly leases = new Map<string, Lease>();
  /** Stored bytes and sessions, counted from the stores (stale-count.ts). */
  private readonly bytes = new StaleCount(() => storedBytes(this.env, this.tenant), 'stored bytes');
  private readonly sessionCount = new StaleCount(() => sessionCount(this.env.DB, this.tenant), 'sessions');
  /** The tenant this object counts for (its name; every request names it). */
  private tenant = '';
  private caps: TenantCaps = {};

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      for (const [key, lease] of await ctx.storage.list<Lease>({ prefix: LEASE }))
        this.leases.set(key.slice(LEASE.length), lease);
      this.caps = (await ctx.storage.get<TenantCaps>(CAPS)) ?? {};
    });
  }

  /** The stored-bytes cap: the operator's for this tenant, else the environment's. */
  private storedCap(fromEnv: number): number {
    return this.caps.storedBytes ?? fromEnv;
  }

  // Lease writes do not wait for the storage to confirm them (`allowUnconfirmed`): the answer goes out
  // at once, and what a crash could lose is one lease, a count one too low for a while.
  private put(id: string, lease: Lease): void {
    this.leases.set(id, lease);
    void this.ctx.storage.put(LEASE + id, lease, { allowUnconfirmed: true });
  }

  private drop(ids: string[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.leases.delete(id);
    for (let i = 0; i < ids.length; i += 128)
      void this.ctx.storage.delete(
        ids.slice(i, i + 128).map((id) => LEASE + id),
        { allowUnconfirmed: true },
      );
  }

  private expire(now: number): void {
    this.drop([...this.leases].filter(([, l]) => l.until < now).map(([id]) => id));
  }

  async acquire(r: LeaseRequest): Promise<LeaseOutcome> {
    if (r.storage) {
      this.tenant = r.tenant;
      const used = await this.bytes.used(r.storage.recountMs);
      const cap = this.storedCap(r.storage.cap);
      if (used >= cap) return { ok: false, limit: 'storage', max: cap, used };
    }
    const now = Date.now();
    const session = r.session ?? '';
    // Expired leases are dropped only when they could stand in the way.
    const over = () => {
      let mine = 0;
      for (const l of this.leases.values()) if (l.session === session) mine++;
      if (this.leases.size >= r.perTenant) return 'tenant' as const;
      if (session !== '' && mine >= r.perSession) return 'session' as const;
      return undefined;
    };
    let limit = over();
    if (limit) {
      this.expire(now);
      limit = over();
    }
    if (limit === 'tenant') return { ok: false, limit, max: r.perTenant };
    if (limit === 'session') return { ok: false, limit, max: r.perSession };
    this.put(r.lease, { session, until: now + r.leaseMs });
    return { ok: true };
  }

  /**
   * Keeps a running call's place for another `leaseMs`. A lease already dropped as expired (its
   * renewal came late) is not taken again: the call runs on uncounted rather than over the limit.
   */
  async renew(lease: string, leaseMs: number): Promise<void> {
    const l = this.leases.get(lease);
    if (l) this.put(lease, { ...l, until: Date.now() + leaseMs });
  }

  async release(lease: string): Promise<void> {
    this.drop([lease]);
  }

  /** Lets `bytes` through unless the tenant would then store more than its cap. */
  async reserve(r: ReserveRequest): Promise<ReserveOutcome> {
    this.tenant = r.tenant;
    const used = await this.bytes.used(r.recountMs);
    const cap = this.storedCap(r.cap);
    if (used + r.bytes > cap) return { ok: false, used, max: cap };
    this.bytes.take(r.bytes);
    return { ok: true, used: used + r.bytes };
  }

  /** Admits one new session unless the tenant holds `cap` already; counted at once. */
  async admitSession(r: AdmitSessionRequest): Promise<ReserveOutcome> {
    this.tenant = r.tenant;
    const used = await this.sessionCount.used(r.recountMs);
    const cap = this.caps.sessions ?? r.cap;
    if (used + 1 > cap) return { ok: false, used, max: cap };
    this.sessionCount.take(1);
    return { ok: true, used: used + 1 };
  }

  /** A session admitted and then not created, or deleted: its place is free again. */
  async sessionGone(tenant: string): Promise<void> {
    this.tenant = tenant;
    this.sessionCount.add(-1);
  }

  /**
   * Counts `bytes` stored without a check (what a call already admitted stores), or gives a
   * reservation back (negative). Before the first count it waits for nothing: the count will see them.
   */
  async charge(tenant: string, bytes: number): Promise<void> {
    this.tenant = tenant;
    this.bytes.add(bytes);
  }

  /** Counts the tenant's bytes from the stores now (the operator's recount); the total it gives. */
  async recountNow(tenant: string): Promise<{ bytes: number; countedAt: number }> {
    this.tenant = tenant;
    const { n, at } = await this.bytes.now();
    return { bytes: n, countedAt: at };
  }

  /** The operator's caps for this tenant (`null` clears one), kept in the object's storage. */
  async setCaps(caps: {
    storedBytes?: number | null | undefined;
    sessions?: number | null | undefined;
  }): Promise<TenantCaps> {
    const next: TenantCaps = { ...this.caps };
    for (const name of ['storedBytes', 'sessions'] as const) {
      const v = caps[name];
      if (v === null) delete next[name];
      else if (v !== undefined) next[name] = v;
    }
    await this.ctx.storage.put(CAPS, next);
    this.caps = next;
    return next;
  }

  /**
   * Adds call `callId`'s reported usage to the tenant's token tally, once: a replay of a call already
   * counted (its first reply lost) adds nothing. Whether it counted it now.
   */
  async tally(callId: string, usage: Usage): Promise<boolean> {
    const next = countCall(
      storedTally(await this.ctx.storage.get<StoredTally | TokenTally>(TOKENS)),
      callId,
      usage,
      Date.now(),
    );
    if (next) await this.ctx.storage.put(TOKENS, next);
    return next !== undefined;
  }

  async usage(tenant: string, recountMs: number): Promise<TenantUsage> {
    const { tokens } = storedTally(await this.ctx.storage.get<StoredTally | TokenTally>(TOKENS));
    this.tenant = tenant;
    const stored = await this.bytes.used(recountMs);
    const held = await this.sessionCount.used(recountMs);
    this.expire(Date.now());
    const sessions: Record<string, number> = {};
    for (const l of this.leases.values())
      if (l.session !== '') sessions[l.session] = (sessions[l.session] ?? 0) + 1;
    return {
      inFlight: this.leases.size,
      sessions,
      stored: { bytes: stored, countedAt: this.bytes.countedAt },
      sessionCount: held,
      caps: { ...this.caps },
      tokens,
    };
  }
}
