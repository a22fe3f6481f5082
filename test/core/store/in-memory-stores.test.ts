import { createInMemoryMemoryStore, createInMemorySessionStore } from '../../../src/core/index.ts';
import { memoryStoreContract } from '../../contract/memory-store-contract.ts';
import { sessionStoreContract } from '../../contract/session-store-contract.ts';

sessionStoreContract('in-memory', async (clock) => ({ store: createInMemorySessionStore({ clock }) }));
memoryStoreContract('in-memory', async () => ({ store: createInMemoryMemoryStore() }));
