import type { SessionStore } from '../../core/index.ts';
import { createSqlSessionStore, type SqlSessionStoreOptions } from '../sql/sql-session-store.ts';
import type { SqliteHandle } from './open-sqlite.ts';

/** The Node `SessionStore` over better-sqlite3 (see `openSqlite`). */
export function createSqliteSessionStore(
  handle: SqliteHandle,
  options: SqlSessionStoreOptions = {},
): SessionStore {
  return createSqlSessionStore(handle, options);
}
