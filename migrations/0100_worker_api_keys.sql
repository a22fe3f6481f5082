-- Edge service (src/worker/auth): bearer API keys per tenant, stored as SHA-256 hex only.
-- Hand-written and outside the drizzle schema: only the Worker reads it. Numbered 0100 so that it
-- sorts after the drizzle-kit migrations of the shared schema.
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY NOT NULL,
  tenant TEXT NOT NULL,
  hash TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS api_keys_tenant_idx ON api_keys (tenant);
