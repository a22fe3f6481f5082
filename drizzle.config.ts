import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes the SQL migrations that `wrangler d1 migrations apply` and the
// Node SQLite store both apply (FTS5 tables come from a `generate --custom` migration).
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './migrations',
});
