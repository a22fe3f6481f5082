import {
  createSqliteMemoryStore,
  createSqliteSessionStore,
  openSqlite,
} from '../../../src/db/sqlite/index.ts';
import { memoryStoreContract } from '../../contract/memory-store-contract.ts';
import { sessionStoreContract } from '../../contract/session-store-contract.ts';

sessionStoreContract('sqlite', async (clock) => {
  const handle = openSqlite({ path: ':memory:' });
  return { store: createSqliteSessionStore(handle, { clock }), close: () => handle.close() };
});
memoryStoreContract('sqlite', async () => {
  const handle = openSqlite({ path: ':memory:' });
  return { store: createSqliteMemoryStore(handle), close: () => handle.close() };
});
