/**
 * The `api_keys` rows of a tenant over D1: issue a key (the plain key is returned once, only its
 * SHA-256 is stored), list them without their hashes, revoke one. Every query carries the tenant, and
 * every issue and revoke writes its audit entry in the same batch.
 *
 * Keys form a tree: each records the key that minted it (`''`: the operator). A key administers its
 * own line only — itself and the keys it minted, directly or through them — never the key that minted
 * it nor a sibling: a leaked child cannot lock its parent out, and only the operator (or an ancestor)
 * revokes a tenant's first keys. Revoking a key revokes every key minted through it, since a leaked
 * key may have minted others.
 */
import { CtxError } from '../../core/index.ts';
import { forgetVerifiedKey, generateApiKey, insertApiKey } from './api-keys.ts';
import { auditInsert } from './audit-log.ts';
import { formatScopes, parseScopes, type Scope } from './scopes.ts';

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
  scopes: Scope[];
  expiresAt: number | null;
  /** The key that minted it; `null`: the operator. */
  createdBy: string | null;
}

export interface IssuedApiKey extends Omit<ApiKeyInfo, 'revokedAt'> {
  /** The plain key, `ctx_<id>_<secret>`: shown this once, only its SHA-256 is stored. */
  key: string;
}

/** Who acts: a key of the tenant (its id, scopes and expiry), or the operator. */
export type KeyActor =
  | { kind: 'key'; keyId: string; scopes: readonly Scope[]; expiresAt: number | null; address?: string }
  | { kind: 'operator'; address?: string };

export interface KeyGrant {
  label?: string | undefined;
  /** @default the actor's scopes (every scope for the operator) */
  scopes?: readonly Scope[] | undefined;
  /** @default the actor's expiry (none for the operator) */
  expiresAt?: number | null | undefined;
}

interface KeyRow {
  id: string;
  label: string;
  created_at: number;
  revoked_at: number | null;
  scopes: string;
  expires_at: number | null;
  created_by: string;
}

function info(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    label: row.label === '' ? null : row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    scopes: parseScopes(row.scopes),
    expiresAt: row.expires_at,
    createdBy: row.created_by === '' ? null : row.created_by,
  };
}

const actorName = (a: KeyActor) => (a.kind === 'key' ? `key:${a.keyId}` : 'operator');
const ALL: readonly Scope[] = ['read', 'write', 'proxy', 'admin'];

/** The grant a key may give: no scope it lacks, no expiry after its own. */
function allowedGrant(
  actor: KeyActor,
  grant: KeyGrant,
): { scopes: readonly Scope[]; expiresAt: number | null } {
  if (actor.kind === 'operator') return { scopes: grant.scopes ?? ALL, expiresAt: grant.expiresAt ?? null };
  const scopes = grant.scopes ?? actor.scopes;
  const extra = scopes.filter((s) => !actor.scopes.includes(s));
  if (extra.length > 0)
    throw new CtxError(
      'insufficient_scope',
      `a key mints keys with its own scopes at most; it lacks ${extra.join(', ')}`,
      {
        path: 'scopes',
      },
    );
  const expiresAt = grant.expiresAt === undefined ? actor.expiresAt : grant.expiresAt;
  if (actor.expiresAt !== null && (expiresAt === null || expiresAt > actor.expiresAt))
    throw new CtxError(
      'insufficient_scope',
      `a key mints keys that expire no later than itself (${actor.expiresAt})`,
      {
        path: 'expiresDays',
      },
    );
  return { scopes, expiresAt };
}

/** A new key for `tenant`; `conflict` when it already holds `MAX_ACTIVE_KEYS_PER_TENANT` active keys. */
export async function issueApiKey(
  db: D1Database,
  tenant: string,
  actor: KeyActor,
  grant: KeyGrant,
  now: number,
): Promise<IssuedApiKey> {
  const { scopes, expiresAt } = allowedGrant(actor, grant);
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
  const createdBy = actor.kind === 'key' ? actor.keyId : '';
  const { key, row } = await generateApiKey(tenant, { scopes, expiresAt, createdBy });
  await insertApiKey(db, row, grant.label ?? '', now);
  await auditInsert(db, {
    tenant,
    at: now,
    actor: actorName(actor),
    action: 'key.create',
    target: row.id,
    detail: { scopes: formatScopes(scopes), expiresAt, label: grant.label ?? null },
    ...(actor.address ? { address: actor.address } : {}),
  }).run();
  return {
    id: row.id,
    key,
    label: grant.label ?? null,
    createdAt: now,
    scopes: [...scopes],
    expiresAt,
    createdBy: createdBy === '' ? null : createdBy,
  };
}

async function tenantKeys(db: D1Database, tenant: string): Promise<KeyRow[]> {
  const { results } = await db
    .prepare(
      'SELECT id, label, created_at, revoked_at, scopes, expires_at, created_by FROM api_keys WHERE tenant = ? ORDER BY created_at DESC, id LIMIT ?',
    )
    .bind(tenant, MAX_LISTED_KEYS)
    .all<KeyRow>();
  return results;
}

/** `root` and every key minted through it, by id. */
function line(rows: readonly KeyRow[], root: string): Set<string> {
  const children = new Map<string, string[]>();
  for (const r of rows) children.set(r.created_by, [...(children.get(r.created_by) ?? []), r.id]);
  const out = new Set<string>([root]);
  const queue = [root];
  for (let next = queue.pop(); next !== undefined; next = queue.pop())
    for (const c of children.get(next) ?? [])
      if (!out.has(c)) {
        out.add(c);
        queue.push(c);
      }
  return out;
}

/**
 * The keys `actor` administers, revoked ones included, newest first (at most `MAX_LISTED_KEYS`): a
 * key's own line, or every key of the tenant for the operator.
 */
export async function listApiKeys(db: D1Database, tenant: string, actor: KeyActor): Promise<ApiKeyInfo[]> {
  const rows = await tenantKeys(db, tenant);
  if (actor.kind === 'operator') return rows.map(info);
  const mine = line(rows, actor.keyId);
  return rows.filter((r) => mine.has(r.id)).map(info);
}

/**
 * Revokes the tenant's key `id` and every key minted through it, and drops them from this isolate's
 * auth cache. `missing` when the tenant has no such key (another tenant's key included); `already`
 * when it was revoked before (its first `revokedAt` is kept); `insufficient_scope` when `actor` is a
 * key whose line it is not in.
 */
export async function revokeApiKey(
  db: D1Database,
  tenant: string,
  id: string,
  actor: KeyActor,
  now: number,
): Promise<'revoked' | 'already' | 'missing'> {
  const rows = await tenantKeys(db, tenant);
  const target = rows.find((r) => r.id === id);
  if (!target) return 'missing';
  if (actor.kind === 'key' && !line(rows, actor.keyId).has(id))
    throw new CtxError(
      'insufficient_scope',
      `key ${id} is not in this key's line: a key revokes itself and the keys minted through it, never the key that minted it (the operator revokes any)`,
      { path: 'params.id' },
    );
  const doomed = [...line(rows, id)].filter((k) => rows.find((r) => r.id === k)?.revoked_at === null);
  if (doomed.length === 0) return 'already';
  const statements = doomed.map((k) =>
    db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND tenant = ? AND revoked_at IS NULL')
      .bind(now, k, tenant),
  );
  statements.push(
    auditInsert(db, {
      tenant,
      at: now,
      actor: actorName(actor),
      action: 'key.revoke',
      target: id,
      detail: { revoked: doomed },
      ...(actor.address ? { address: actor.address } : {}),
    }),
  );
  await db.batch(statements);
  const hashes = await db
    .prepare(`SELECT hash FROM api_keys WHERE tenant = ? AND id IN (${doomed.map(() => '?').join(', ')})`)
    .bind(tenant, ...doomed)
    .all<{ hash: string }>();
  for (const h of hashes.results) forgetVerifiedKey(h.hash);
  return target.revoked_at === null ? 'revoked' : 'already';
}
