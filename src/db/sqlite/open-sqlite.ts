/**
 * Opens (creating when needed) the Node SQLite database of ctxkit with better-sqlite3, applies
 * the drizzle-kit migrations in `migrations/`, and returns the driver the shared stores use.
 * The path is an option: the CLI resolves `~/.ctxkit/ctxkit.db` (or its configured workspace).
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { schema } from '../schema.ts';
import type { SqlDb, SqlDriver, SqlWrite } from '../sql/sql-driver.ts';

/** The `migrations/` folder at the package root. */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'migrations');

export interface OpenSqliteOptions {
  /** A file path, or `:memory:`. */
  path: string;
  /** @default MIGRATIONS_DIR */
  migrationsDir?: string;
}

export interface SqliteHandle extends SqlDriver {
  client: Database.Database;
  close(): void;
}

export function openSqlite(options: OpenSqliteOptions): SqliteHandle {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const client = new Database(options.path);
  client.pragma('journal_mode = WAL');
  client.pragma('busy_timeout = 5000');
  const orm = drizzle(client, { schema });
  migrate(orm, { migrationsFolder: options.migrationsDir ?? MIGRATIONS_DIR });
  const batch = client.transaction((writes: readonly SqlWrite[]) => {
    for (const w of writes) (w as unknown as { run(): unknown }).run();
  });
  return {
    client,
    db: orm as unknown as SqlDb,
    async batch(writes) {
      batch(writes);
    },
    close: () => client.close(),
  };
}
