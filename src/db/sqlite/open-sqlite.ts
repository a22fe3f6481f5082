/**
 * Opens (creating when needed) the Node SQLite database of ctxkit with better-sqlite3, applies
 * the drizzle-kit migrations in `migrations/`, and returns the driver the shared stores use.
 * The path is an option: the CLI resolves `~/.ctxkit/ctxkit.db` (or its configured workspace).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import type { drizzle as drizzleFn } from 'drizzle-orm/better-sqlite3';
import type { migrate as migrateFn } from 'drizzle-orm/better-sqlite3/migrator';
import { CtxError } from '../../core/index.ts';
import { schema } from '../schema.ts';
import type { SqlDb, SqlDriver, SqlWrite } from '../sql/sql-driver.ts';

/**
 * The nearest `migrations/` folder above this module: the repository's own from `src/db/sqlite`, the
 * copy in `dist/migrations` from the built package (`dist/db/sqlite`, or the CLI's `dist/bin/chunks`).
 */
export function findMigrationsDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from, i = 0; i < 5; i++, dir = dirname(dir)) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, 'meta', '_journal.json'))) return candidate;
  }
  return join(from, '..', '..', '..', 'migrations');
}

/** The `migrations/` folder shipped with ctxkit. */
export const MIGRATIONS_DIR = findMigrationsDir();

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

interface SqliteModules {
  Database: typeof Database;
  drizzle: typeof drizzleFn;
  migrate: typeof migrateFn;
}

let modules: SqliteModules | undefined;

/**
 * better-sqlite3 (native) and its drizzle driver are optional peers of ctxkit: loaded on the first
 * `openSqlite()`, so that `ctxkit/node` imports without them and their absence is named.
 */
function sqliteModules(): SqliteModules {
  if (modules) return modules;
  const require = createRequire(import.meta.url);
  const load = <T>(name: string, pkg: string): T => {
    try {
      return require(name) as T;
    } catch (cause) {
      throw new CtxError(
        'unsupported',
        `the SQLite stores need the optional package ${pkg} (npm install better-sqlite3 drizzle-orm): ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`,
        { cause },
      );
    }
  };
  modules = {
    Database: load<typeof Database>('better-sqlite3', 'better-sqlite3'),
    drizzle: load<{ drizzle: typeof drizzleFn }>('drizzle-orm/better-sqlite3', 'drizzle-orm').drizzle,
    migrate: load<{ migrate: typeof migrateFn }>('drizzle-orm/better-sqlite3/migrator', 'drizzle-orm')
      .migrate,
  };
  return modules;
}

export function openSqlite(options: OpenSqliteOptions): SqliteHandle {
  const { Database, drizzle, migrate } = sqliteModules();
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
