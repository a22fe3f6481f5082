import type { MemoryStore } from '../../core/index.ts';
import { createSqlMemoryStore } from '../sql/sql-memory-store.ts';
import type { SqliteHandle } from './open-sqlite.ts';

/** The Node `MemoryStore` over better-sqlite3 (see `openSqlite`). */
export function createSqliteMemoryStore(handle: SqliteHandle): MemoryStore {
  return createSqlMemoryStore(handle);
}
