/**
 * The thin dialect seam between the shared drizzle stores and a concrete SQLite: better-sqlite3
 * (synchronous, Node) or D1 (asynchronous, Workers). Queries are built once against the schema and
 * awaited in both modes; `batch` runs a list of writes atomically (a transaction / `D1.batch`).
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { schema } from '../schema.ts';

export type SqlDb = BaseSQLiteDatabase<'sync' | 'async', unknown, typeof schema>;
export type SqlWrite = BatchItem<'sqlite'>;

export interface SqlDriver {
  db: SqlDb;
  /** Runs the writes atomically, in order. */
  batch(writes: readonly SqlWrite[]): Promise<void>;
}

/** D1 allows at most 100 bound parameters per statement: split long id lists. */
export function chunked<T>(items: readonly T[], size = 50): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Whether a driver error is a UNIQUE / PRIMARY KEY violation. */
export function isUniqueViolation(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/UNIQUE constraint failed|PRIMARY KEY constraint|SQLITE_CONSTRAINT/i.test(msg)) return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}
