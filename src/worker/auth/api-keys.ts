/**
 * Bearer API keys, one or more per tenant. A key reads `ctx_<keyId>_<secret>`; only its SHA-256 is
 * stored (`api_keys` table), looked up by `keyId` and compared in constant time. Each key has its
 * scopes (`scopes.ts`), an optional expiry and the key that minted it (`''`: the operator).
 */
import { CtxError } from '../../core/index.ts';
import { formatScopes, parseScopes, SCOPES, type Scope } from './scopes.ts';

const KEY_RE = /^ctx_([a-z0-9]{12})_([A-Za-z0-9_-]{32,128})$/;
/** The id part of a key (`ctx_<id>_…`), also the `api_keys.id` column. */
export const KEY_ID_PATTERN = /^[a-z0-9]{12}$/;
// Compared against when the key id is unknown, so that both paths cost the same.
const DUMMY_HASH = '0'.repeat(64);

export interface ApiKeyRow {
  id: string;
  tenant: string;
  hash: string;
  /** @default every scope */
  scopes?: readonly Scope[];
  /** Ms since epoch; `null`/absent: never. */
  expiresAt?: number | null;
  /** The key that minted it; `''` (the default): the operator. */
  createdBy?: string;
}

interface StoredKeyRow {
  id: string;
  tenant: string;
  hash: string;
  scopes?: string | null;
  expires_at?: number | null;
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
export async function generateApiKey(
  tenant: string,
  grant: Pick<ApiKeyRow, 'scopes' | 'expiresAt' | 'createdBy'> = {},
): Promise<{ key: string; row: ApiKeyRow }> {
  const id = [...crypto.getRandomValues(new Uint8Array(6))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  const key = `ctx_${id}_${randomToken(32)}`;
  return { key, row: { id, tenant, hash: await sha256Hex(key), ...grant } };
}

/** The key id of a well-formed key (`ctx_<id>_…`), else undefined. */
export function keyIdOf(key: string): string | undefined {
  return KEY_RE.exec(key)?.[1];
}

/** Extracts the key from an `Authorization: Bearer …` header; throws `unauthorized`. */
export function bearerKey(header: string | null): string {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw new CtxError('unauthorized', 'missing bearer token', { path: 'headers.authorization' });
  return match[1]!;
}

/** Who a key speaks for: its tenant, its id (to tell the key of the request from the others), what it may do. */
export interface ApiKeyPrincipal {
  tenant: string;
  keyId: string;
  scopes: Scope[];
  /** Ms since epoch; `null`: never. */
  expiresAt: number | null;
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
  const hit = await cachedPrincipal(key, now);
  if (hit) return hit;
  const digest = await sha256Hex(key);
  const principal = await lookup(db, key, digest, now);
  if ((revokedHere.get(digest) ?? 0) > now) throw invalidKey();
  if (verified.size >= AUTH_CACHE_MAX) verified.clear();
  // Never remembered past its expiry.
  const until = Math.min(now + AUTH_CACHE_TTL_MS, principal.expiresAt ?? Number.POSITIVE_INFINITY);
  verified.set(digest, { ...principal, until });
  return principal;
}

/** `key`'s principal when this isolate verified it within `AUTH_CACHE_TTL_MS` (no D1 read), else undefined. */
export async function cachedPrincipal(key: string, now = Date.now()): Promise<ApiKeyPrincipal | undefined> {
  const hit = verified.get(await sha256Hex(key));
  if (!hit || hit.until <= now) return undefined;
  const { until: _until, ...principal } = hit;
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

async function lookup(db: D1Database, key: string, digest: string, now: number): Promise<ApiKeyPrincipal> {
  const parsed = KEY_RE.exec(key);
  const row = parsed
    ? await db
        .prepare(
          'SELECT id, tenant, hash, scopes, expires_at FROM api_keys WHERE id = ? AND revoked_at IS NULL',
        )
        .bind(parsed[1]!)
        .first<StoredKeyRow>()
    : null;
  const ok = timingSafeEqual(digest, row?.hash ?? DUMMY_HASH);
  if (!row || !ok) throw invalidKey();
  // Told apart from an unknown key only once the secret matched: the holder may know it expired.
  if (typeof row.expires_at === 'number' && row.expires_at <= now)
    throw new CtxError('unauthorized', 'this API key has expired', { path: 'headers.authorization' });
  // A row without the columns of migration 0121 (a database not migrated yet): every scope, no expiry.
  return {
    tenant: row.tenant,
    keyId: row.id,
    scopes: typeof row.scopes === 'string' ? parseScopes(row.scopes) : [...SCOPES],
    expiresAt: row.expires_at ?? null,
  };
}

export async function insertApiKey(
  db: D1Database,
  row: ApiKeyRow,
  label: string,
  now: number,
): Promise<void> {
  await db
    .prepare(
      'INSERT INTO api_keys (id, tenant, hash, label, created_at, scopes, expires_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .bind(
      row.id,
      row.tenant,
      row.hash,
      label,
      now,
      formatScopes(row.scopes ?? SCOPES),
      row.expiresAt ?? null,
      row.createdBy ?? '',
    )
    .run();
}
