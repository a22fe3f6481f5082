/**
 * D1 stores for the worker: the shared drizzle stores over `drizzle-orm/d1`, with `D1.batch` for
 * atomic writes. Apply `migrations/` first (`wrangler d1 migrations apply DB --local`, or
 * `applyD1Migrations` in tests).
 */
import type { D1Database } from '@cloudflare/workers-types';
import { drizzle } from 'drizzle-orm/d1';
import type { MemoryStore } from '../../core/index.ts';
import { schema } from '../../db/schema.ts';
import type { SqlDb, SqlDriver } from '../../db/sql/sql-driver.ts';
import { createSqlMemoryStore } from '../../db/sql/sql-memory-store.ts';
import {
  createSqlSessionStore,
  type SqlSessionStore,
  type SqlSessionStoreOptions,
} from '../../db/sql/sql-session-store.ts';
import { r2LargeValues } from '../blobs/log-values.ts';

export function d1Driver(d1: D1Database): SqlDriver {
  const orm = drizzle(d1, { schema });
  return {
    db: orm as unknown as SqlDb,
    async batch(writes) {
      if (writes.length === 0) return;
      await orm.batch(writes as unknown as Parameters<typeof orm.batch>[0]);
    },
  };
}

export interface D1SessionStoreOptions extends SqlSessionStoreOptions {
  /** Where messages too large for a row go (src/db/sql/large-rows.ts); absent: a row refuses them. */
  blobs?: R2Bucket;
}

export function createD1SessionStore(db: D1Database, options: D1SessionStoreOptions = {}): SqlSessionStore {
  const { blobs, ...rest } = options;
  return createSqlSessionStore(d1Driver(db), {
    ...rest,
    ...(blobs ? { large: r2LargeValues(blobs) } : {}),
  });
}

export function createD1MemoryStore(db: D1Database): MemoryStore {
  // Decoded chunk indexes are cached per D1 binding (per isolate), checked against the tenant's rows.
  return createSqlMemoryStore(d1Driver(db), { cacheKey: db });
}

/**
 * Applies migration SQL texts (drizzle-kit files, split on `--> statement-breakpoint`) to a D1
 * database, for tests and first boots without wrangler. Not idempotent: run once on an empty DB.
 */
export async function applyD1Migrations(db: D1Database, files: readonly string[]): Promise<void> {
  for (const file of files)
    for (const statement of file.split('--> statement-breakpoint')) {
      const s = statement.replace(/^\s*--.*$/gm, '').trim();
      if (s !== '') await db.prepare(s).run();
    }
}
