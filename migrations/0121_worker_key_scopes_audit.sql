-- Edge service (src/worker/auth): key scopes, expiry and lineage, and the append-only audit log.
-- Hand-written and outside the drizzle schema, like 0100: only the Worker reads these tables.
-- Keys made before scopes keep every scope and no expiry; `created_by` '' = issued by the operator.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read,write,proxy,admin';
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS api_keys_created_by_idx ON api_keys (tenant, created_by);

-- Who did what to a tenant's keys and limits: written by the Worker, never updated or deleted.
CREATE TABLE IF NOT EXISTS audit_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  detail TEXT NOT NULL DEFAULT '{}',
  address TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_log_tenant_idx ON audit_log (tenant, seq);
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
