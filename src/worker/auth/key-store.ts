/**
 * The `api_keys` rows of a tenant over D1: issue a key (the plain key is returned once, only its
 * SHA-256 is stored), list them without their hashes, revoke one. Every query carries the tenant.
 */
import { CtxError } from '../../core/index.ts';
import { forgetVerifiedKey, generateApiKey, insertApiKey } from './api-keys.ts';

/** Active (unrevoked) keys a tenant may hold; one more is a 409. @default 100 */
export const MAX_ACTIVE_KEYS_PER_TENANT = 100;
/** Keys returned by a listing, newest first. @default 1000 */
export const MAX_LISTED_KEYS = 1000;

/** A key as its tenant may see it: never the hash. `label` is null when none was given. */
export interface ApiKeyInfo {
  id: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface IssuedApiKey extends Omit<ApiKeyInfo, 'revokedAt'> {
  /** The plain key, `ctx_<id>_<secret>`: shown this once, only its SHA-256 is stored. */
  key: string;
}

interface KeyRow {
  id: string;
  label: string;
  created_at: number;
  revoked_at: number | null;
}

function info(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    label: row.label === '' ? null : row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** A new key for `tenant`; `conflict` when it already holds `MAX_ACTIVE_KEYS_PER_TENANT` active keys. */
export async function issueApiKey(
  db: D1Database,
  tenant: string,
  label: string | undefined,
  now: number,
): Promise<IssuedApiKey> {
  const active = await db
    .prepare('SELECT COUNT(*) AS n FROM api_keys WHERE tenant = ? AND revoked_at IS NULL')
    .bind(tenant)
    .first<{ n: number }>();
  if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS_PER_TENANT)
    throw new CtxError(
      'conflict',
      `the tenant already has ${MAX_ACTIVE_KEYS_PER_TENANT} active keys; revoke one first`,
      { path: 'tenant' },
    );
  const { key, row } = await generateApiKey(tenant);
  await insertApiKey(db, row, label ?? '', now);
  return { id: row.id, key, label: label ?? null, createdAt: now };
}

/** The tenant's keys, revoked ones included, newest first (at most `MAX_LISTED_KEYS`). */
export async function listApiKeys(db: D1Database, tenant: string): Promise<ApiKeyInfo[]> {
  const { results } = await db
    .prepare(
      'SELECT id, label, created_at, revoked_at FROM api_keys WHERE tenant = ? ORDER BY created_at DESC, id LIMIT ?',
    )
    .bind(tenant, MAX_LISTED_KEYS)
    .all<KeyRow>();
  return results.map(info);
}

/**
 * Revokes the tenant's key `id` and drops it from this isolate's auth cache. `missing` when the
 * tenant has no such key (another tenant's key included); `already` when it was revoked before
 * (its first `revokedAt` is kept).
 */
export async function revokeApiKey(
  db: D1Database,
  tenant: string,
  id: string,
  now: number,
): Promise<'revoked' | 'already' | 'missing'> {
  const row = await db
    .prepare('SELECT hash, revoked_at FROM api_keys WHERE id = ? AND tenant = ?')
    .bind(id, tenant)
    .first<{ hash: string; revoked_at: number | null }>();
  if (!row) return 'missing';
  const result = await db
    .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND tenant = ? AND revoked_at IS NULL')
    .bind(now, id, tenant)
    .run();
  forgetVerifiedKey(row.hash);
  return row.revoked_at === null && result.meta.changes > 0 ? 'revoked' : 'already';
}
