/**
 * Stored bytes per tenant, reserved before anything is stored (docs/service.md, "Limits"): a write
 * asks the tenant's object for the bytes it is about to store — counted from what it stores, not from
 * a `Content-Length` — and is refused, storing nothing, when they would take the tenant over
 * `MAX_STORED_BYTES_PER_TENANT` (or the operator's cap for the tenant). The object adds the bytes to
 * its total at once, so writes running at the same time cannot all pass the last free bytes. A write
 * that fails after its reservation gives the bytes back; what a call already admitted stores after
 * it (the answer it logs) is charged without a check. Every route reserves after its body is
 * validated, and the session routes after their idempotency replay: a retry of a write that was
 * acknowledged gets its stored answer, never a 429.
 */
import type { Message } from '../../core/index.ts';
import { indexedText } from '../../db/sql/sql-session-store.ts';
import type { Env } from '../env.ts';
import { LIMIT_VARS, limitsBound, tenantLimits } from './limit-config.ts';
import { QuotaError } from './quota-error.ts';
import { tenantStub } from './tenant-stub.ts';

export interface StorageQuota {
  /** Throws `QuotaError` when `bytes` more would pass the cap; else they are counted as stored. */
  reserve(bytes: number): Promise<void>;
  /** Gives back a reservation whose write failed. */
  unreserve(bytes: number): Promise<void>;
  /** Counts bytes stored by a call already admitted (never refused). */
  charge(bytes: number): Promise<void>;
}

const utf8 = new TextEncoder();

/** UTF-8 bytes of `text` (what stored-bytes.ts counts with `LENGTH(CAST(x AS BLOB))`). */
export function byteLength(text: string): number {
  return utf8.encode(text).byteLength;
}

/** The bytes a log row of `m` takes in D1: its JSON and its indexed text (as stored-bytes.ts counts them). */
export function messageRowBytes(m: Message): number {
  return byteLength(JSON.stringify(m)) + byteLength(indexedText(m));
}

/** A new session's row before its first state write: its title and project, and the empty state. */
export function sessionRowBytes(title: string | undefined, project: string | undefined): number {
  return byteLength(title ?? '') + byteLength(project ?? '') + EMPTY_SESSION_BYTES;
}

/** The empty state a session starts with (`{"pipeline":…,"working":null,"memoryBlock":null}`). */
const EMPTY_SESSION_BYTES = 256;

export function messagesBytes(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += messageRowBytes(m);
  return n;
}

/** The tenant's quota, or undefined when the deployment keeps no tenant limits (`TENANTS` unbound). */
export function storageQuota(env: Env, tenant: string): StorageQuota | undefined {
  if (!limitsBound(env)) return undefined;
  const limits = tenantLimits(env);
  const stub = tenantStub(env, tenant);
  return {
    async reserve(bytes) {
      if (bytes <= 0) return;
      const got = await stub.reserve({ tenant, bytes, cap: limits.storedBytes, recountMs: limits.recountMs });
      if (got.ok) return;
      const name = LIMIT_VARS.storedBytes;
      throw new QuotaError(
        `this tenant stores ${got.used} bytes; ${bytes} more would pass its limit of ${got.max} (${name}): nothing new is stored until data is deleted or the limit raised`,
        { name, max: got.max, used: got.used },
        Math.ceil(limits.recountMs / 1000),
      );
    },
    async unreserve(bytes) {
      if (bytes > 0) await stub.charge(tenant, -bytes);
    },
    async charge(bytes) {
      if (bytes > 0) await stub.charge(tenant, bytes);
    },
  };
}

/** Runs `write` holding a reservation of `bytes`, given back when it fails. */
export async function withReservation<T>(
  quota: StorageQuota | undefined,
  bytes: number,
  write: () => Promise<T>,
): Promise<T> {
  if (!quota) return write();
  await quota.reserve(bytes);
  try {
    return await write();
  } catch (error) {
    await quota.unreserve(bytes).catch(() => undefined);
    throw error;
  }
}
