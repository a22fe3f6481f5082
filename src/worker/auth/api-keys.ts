/**
 * Bearer API keys, one or more per tenant. A key reads `ctx_<keyId>_<secret>`; only its SHA-256 is
 * stored (`api_keys` table), looked up by `keyId` and compared in constant time.
 */
import { CtxError } from '../../core/index.ts';

const KEY_RE = /^ctx_([a-z0-9]{12})_([A-Za-z0-9_-]{32,128})$/;
/** The id part of a key (`ctx_<id>_…`), also the `api_keys.id` column. */
export const KEY_ID_PATTERN = /^[a-z0-9]{12}$/;
// Compared against when the key id is unknown, so that both paths cost the same.
const DUMMY_HASH = '0'.repeat(64);

export interface ApiKeyRow {
  id: string;
  tenant: string;
  hash: string;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Constant-time comparison of two strings (time depends on the length only). */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  const n = Math.max(x.length, y.length);
  let diff = x.length ^ y.length;
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function randomToken(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...buf))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** A new key for `tenant`: the plain key (shown once) and the row to store. */
export async function generateApiKey(tenant: string): Promise<{ key: string; row: ApiKeyRow }> {
  const id = [...crypto.getRandomValues(new Uint8Array(6))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  const key = `ctx_${id}_${randomToken(32)}`;
  return { key, row: { id, tenant, hash: await sha256Hex(key) } };
}

/** Extracts the key from an `Authorization: Bearer …` header; throws `unauthorized`. */
export function bearerKey(header: string | null): string {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw new CtxError('unauthorized', 'missing bearer token', { path: 'headers.authorization' });
  return match[1]!;
}

/** Who a key speaks for: its tenant, and its id (to tell the key of the request from the others). */
export interface ApiKeyPrincipal {
  tenant: string;
  keyId: string;
}

/** Keys verified recently, by the SHA-256 of the key: a revoked key stops working within the TTL. */
const verified = new Map<string, ApiKeyPrincipal & { until: number }>();
/** @default 60 s */
export const AUTH_CACHE_TTL_MS = 60_000;
const AUTH_CACHE_MAX = 1000;
/** Keys revoked in this isolate, until their TTL: a lookup that was in flight during the revoke must not cache them. */
const revokedHere = new Map<string, number>();

/**
 * The tenant and key id of `key`; throws `unauthorized` for a malformed, unknown or revoked key.
 * Successful checks are remembered per isolate for `AUTH_CACHE_TTL_MS`, saving a D1 read per request.
 */
export async function authenticate(db: D1Database, key: string, now = Date.now()): Promise<ApiKeyPrincipal> {
  const digest = await sha256Hex(key);
  const hit = verified.get(digest);
  if (hit && hit.until > now) return { tenant: hit.tenant, keyId: hit.keyId };
  const principal = await lookup(db, key, digest);
  if ((revokedHere.get(digest) ?? 0) > now) throw invalidKey();
  if (verified.size >= AUTH_CACHE_MAX) verified.clear();
  verified.set(digest, { ...principal, until: now + AUTH_CACHE_TTL_MS });
  return principal;
}

/**
 * Drops a key from this isolate's auth cache, by its stored SHA-256 (called on revoke). Other
 * isolates keep their entry until it expires, at most `AUTH_CACHE_TTL_MS` later.
 */
export function forgetVerifiedKey(hash: string, now = Date.now()): void {
  verified.delete(hash);
  if (revokedHere.size >= AUTH_CACHE_MAX) revokedHere.clear();
  revokedHere.set(hash, now + AUTH_CACHE_TTL_MS);
}

function invalidKey(): CtxError {
  return new CtxError('unauthorized', 'invalid API key', { path: 'headers.authorization' });
}

async function lookup(db: D1Database, key: string, digest: string): Promise<ApiKeyPrincipal> {
  const parsed = KEY_RE.exec(key);
  const row = parsed
    ? await db
        .prepare('SELECT id, tenant, hash FROM api_keys WHERE id = ? AND revoked_at IS NULL')
        .bind(parsed[1]!)
        .first<ApiKeyRow>()
    : null;
  const ok = timingSafeEqual(digest, row?.hash ?? DUMMY_HASH);
  if (!row || !ok) throw invalidKey();
  return { tenant: row.tenant, keyId: row.id };
}

export async function insertApiKey(
  db: D1Database,
  row: ApiKeyRow,
  label: string,
  now: number,
): Promise<void> {
  await db
    .prepare('INSERT INTO api_keys (id, tenant, hash, label, created_at) VALUES (?, ?, ?, ?, ?)')
    .bind(row.id, row.tenant, row.hash, label, now)
    .run();
}
