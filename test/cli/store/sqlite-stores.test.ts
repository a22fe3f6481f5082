import { describe, expect, it } from 'vitest';
import { EMPTY_SESSION_STATE, type Message } from '../../../src/core/index.ts';
import { canAppendWithState, createSqlSessionStore } from '../../../src/db/sql/sql-session-store.ts';
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

describe('appendWithState (the proxy: rows and state in one write)', () => {
  const msg = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });

  it('appends the rows, moves lastSeq and writes the state with its compacted flags, at once', async () => {
    const handle = openSqlite({ path: ':memory:' });
    const store = createSqlSessionStore(handle);
    expect(canAppendWithState(store)).toBe(true);
    await store.create({ tenant: 't', id: 's' });
    await store.append('t', 's', [msg('a', 'one'), msg('b', 'two')]);
    const state = { ...EMPTY_SESSION_STATE, working: { throughSeq: 3, items: [{ seq: 2 }, { seq: 3 }] } };
    const last = await store.appendWithState('t', 's', [msg('c', 'three')], state, { expectedSeq: 2 });
    expect(last).toBe(3);
    expect((await store.get('t', 's'))?.lastSeq).toBe(3);
    expect(await store.getState('t', 's')).toEqual(state);
    const rows = await store.messages('t', 's');
    expect(rows.map((r) => [r.seq, r.message.id, r.compacted])).toEqual([
      [1, 'a', true],
      [2, 'b', false],
      [3, 'c', false],
    ]);
    handle.close();
  });

  it('refuses a stale expectedSeq and writes nothing', async () => {
    const handle = openSqlite({ path: ':memory:' });
    const store = createSqlSessionStore(handle);
    await store.create({ tenant: 't', id: 's' });
    await store.append('t', 's', [msg('a', 'one')]);
    const state = { ...EMPTY_SESSION_STATE, working: { throughSeq: 1, items: [] } };
    await expect(
      store.appendWithState('t', 's', [msg('b', 'two')], state, { expectedSeq: 0 }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect((await store.messages('t', 's')).map((r) => r.message.id)).toEqual(['a']);
    expect(await store.getState('t', 's')).toEqual(EMPTY_SESSION_STATE);
    handle.close();
  });

  it('writes nothing for a session that is gone, and keeps the flags of rows the state does not change', async () => {
    const handle = openSqlite({ path: ':memory:' });
    const store = createSqlSessionStore(handle);
    await store.create({ tenant: 't', id: 's' });
    await store.append('t', 's', [msg('a', 'one'), msg('b', 'two')]);
    const state = { ...EMPTY_SESSION_STATE, working: { throughSeq: 2, items: [{ seq: 2 }] } };
    await store.appendWithState('t', 's', [msg('c', 'three'), msg('d', 'four')], state, { expectedSeq: 2 });
    expect((await store.messages('t', 's')).map((r) => [r.seq, r.compacted])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [4, false],
    ]);
    await store.delete('t', 's');
    await expect(
      store.appendWithState('t', 's', [msg('e', 'five')], state, { expectedSeq: 4 }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const { n } = handle.client.prepare('SELECT count(*) AS n FROM session_messages').get() as { n: number };
    expect(n).toBe(0);
    handle.close();
  });
});
