import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { D1Database } from '@cloudflare/workers-types';
import { Miniflare } from 'miniflare';
import { afterAll } from 'vitest';
import {
  applyD1Migrations,
  createD1MemoryStore,
  createD1SessionStore,
} from '../../../src/worker/store/d1-stores.ts';
import { memoryStoreContract } from '../../contract/memory-store-contract.ts';
import { sessionStoreContract } from '../../contract/session-store-contract.ts';

const MIGRATIONS = join(import.meta.dirname, '..', '..', '..', 'migrations');
const files = readdirSync(MIGRATIONS)
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map((f) => readFileSync(join(MIGRATIONS, f), 'utf8'));

/**
 * One workerd and one migrated database for the file, emptied before each test: a workerd start per test
 * cost ~1.5 s, and a fresh database with every migration applied ~1 s more. The FTS indexes follow
 * their tables through the migrations' triggers.
 */
let mf: Miniflare | undefined;
let shared: D1Database | undefined;
afterAll(() => mf?.dispose());

async function freshD1(): Promise<{ db: D1Database }> {
  if (!shared) {
    mf = new Miniflare({ modules: true, script: 'export default {}', d1Databases: ['DB'] });
    shared = (await mf.getD1Database('DB')) as unknown as D1Database;
    await applyD1Migrations(shared, files);
  }
  const tables = await shared
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE '%fts%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
    )
    .all<{ name: string }>();
  await shared.batch(tables.results.map((t) => shared!.prepare(`DELETE FROM "${t.name}"`)));
  return { db: shared };
}

sessionStoreContract('d1', async (clock) => {
  const { db } = await freshD1();
  return { store: createD1SessionStore(db, { clock }) };
});
memoryStoreContract('d1', async () => {
  const { db } = await freshD1();
  return { store: createD1MemoryStore(db) };
});
