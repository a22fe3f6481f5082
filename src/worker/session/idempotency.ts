/**
 * `Idempotency-Key` on the writes a client may retry after a lost reply (create, append, compact).
 * The first answer is kept in the session object's storage under the key, with a SHA-256 of the
 * request; a retry with the same key and the same request gets that answer again and stores nothing,
 * a retry with the same key and another request is a 409. The check and the write run inside the
 * object's write queue, so two copies of one request sent at once still store once, and the record
 * is durable (it survives the object's eviction or a restart). Records older than
 * `IDEMPOTENCY_TTL_MS` are dropped.
 */
import { CtxError, sha256Hex } from '../../core/index.ts';

/** How long a first answer is kept. @default 24 h */
export const IDEMPOTENCY_TTL_MS = 86_400_000;
/** Visible ASCII, 1–255 characters (as the IETF draft's examples; a UUID fits). */
const KEY_RE = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_PREFIX = 'idem:';

export interface Idempotency {
  key: string;
  /** SHA-256 of the operation and its validated body. */
  hash: string;
}

export interface IdempotencyRecord {
  hash: string;
  at: number;
  value: unknown;
}

/** The request's `Idempotency-Key`, validated; `undefined` when absent. */
export async function idempotencyOf(
  header: string | undefined,
  operation: string,
  body: unknown,
): Promise<Idempotency | undefined> {
  if (header === undefined) return undefined;
  if (!KEY_RE.test(header))
    throw new CtxError('invalid_input', 'must be 1–255 visible ASCII characters', {
      path: 'headers.idempotency-key',
    });
  return { key: header, hash: await sha256Hex(`${operation}\n${JSON.stringify(body ?? null)}`) };
}

/** A session id for a create that names none but carries a key: a retry reaches the same object. */
export async function sessionIdFor(tenant: string, key: string): Promise<string> {
  const h = await sha256Hex(`${tenant}\n${key}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** What the Worker gets back from a write that may be a replay. */
export interface MaybeReplayed<T> {
  value: T;
  /** The answer was stored by an earlier request with the same key. */
  replayed: boolean;
}

export function mismatch(): CtxError {
  return new CtxError(
    'conflict',
    'this Idempotency-Key was already used with a different request; use a new key for a new request',
    { path: 'headers.idempotency-key' },
  );
}
