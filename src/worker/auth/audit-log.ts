/**
 * The append-only audit log of a tenant's key and tenant operations (`audit_log`, migration 0121):
 * who (a key `key:<id>`, or `operator`) did what (`key.create`, `key.revoke`, `tenant.limits`) to
 * which target, when and from which address. Rows are only ever inserted: D1 triggers
 * refuse UPDATE and DELETE. The tenant's admin keys read it (`GET /v1/audit`), the operator through
 * `GET /v1/admin/tenants/:tenant/audit`. Never a key or a hash in it.
 */

export type AuditAction = 'key.create' | 'key.revoke' | 'tenant.limits';

export interface AuditEntry {
  seq: number;
  at: number;
  /** `key:<id>` or `operator`. */
  actor: string;
  action: AuditAction;
  /** What it acted on (a key id, a session id, a cron), `''` for the tenant itself. */
  target: string;
  detail: Record<string, unknown>;
  /** The client's address (`CF-Connecting-IP`), `''` when unknown. */
  address: string;
}

export interface AuditRecord {
  tenant: string;
  actor: string;
  action: AuditAction;
  target?: string;
  detail?: Record<string, unknown>;
  address?: string;
  at: number;
}

/** Entries returned at most by one read. @default 1000 */
export const MAX_AUDIT_ENTRIES = 1000;

/** `INSERT` of one entry, to run alone or in the batch of the operation it records. */
export function auditInsert(db: D1Database, r: AuditRecord): D1PreparedStatement {
  return db
    .prepare(
      'INSERT INTO audit_log (tenant, at, actor, action, target, detail, address) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .bind(r.tenant, r.at, r.actor, r.action, r.target ?? '', JSON.stringify(r.detail ?? {}), r.address ?? '');
}

export async function appendAudit(db: D1Database, r: AuditRecord): Promise<void> {
  await auditInsert(db, r).run();
}

interface AuditRow {
  seq: number;
  at: number;
  actor: string;
  action: AuditAction;
  target: string;
  detail: string;
  address: string;
}

/** The tenant's entries after `after` (a `seq`), oldest first, at most `limit`. */
export async function readAudit(
  db: D1Database,
  tenant: string,
  after = 0,
  limit = MAX_AUDIT_ENTRIES,
): Promise<AuditEntry[]> {
  const { results } = await db
    .prepare(
      'SELECT seq, at, actor, action, target, detail, address FROM audit_log WHERE tenant = ? AND seq > ? ORDER BY seq LIMIT ?',
    )
    .bind(tenant, after, Math.min(limit, MAX_AUDIT_ENTRIES))
    .all<AuditRow>();
  return results.map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}
