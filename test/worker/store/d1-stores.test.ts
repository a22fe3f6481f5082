import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { D1Database } from '@cloudflare/workers-types';
import { Miniflare } from 'miniflare';
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

async function freshD1(): Promise<{ db: D1Database; close(): Promise<void> }> {
  const mf = new Miniflare({ modules: true, script: 'export default {}', d1Databases: ['DB'] });
  const db = (await mf.getD1Database('DB')) as unknown as D1Database;
  await applyD1Migrations(db, files);
  return { db, close: () => mf.dispose() };
}

sessionStoreContract('d1', async (clock) => {
  const { db, close } = await freshD1();
  return { store: createD1SessionStore(db, { clock }), close };
});
memoryStoreContract('d1', async () => {
  const { db, close } = await freshD1();
  return { store: createD1MemoryStore(db), close };
});
