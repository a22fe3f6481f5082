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

  it("flags the same rows compacted when the working context's seqs are bound a few per update", async () => {
    const flags = async (refsPerWrite?: number) => {
      const handle = openSqlite({ path: ':memory:' });
      const store = createSqlSessionStore(handle, refsPerWrite ? { refsPerWrite } : {});
      await store.create({ tenant: 't', id: 's' });
      await store.create({ tenant: 't', id: 'other' });
      await store.append('t', 'other', [msg('o1', 'x'), msg('o2', 'y')]);
      await store.append(
        't',
        's',
        Array.from({ length: 12 }, (_, i) => msg(`m${i + 1}`, `text ${i + 1}`)),
      );
      // Kept out of order, with a gap run, a duplicate and the rows past throughSeq.
      const kept = [11, 2, 3, 7, 5, 7, 10];
      const state = {
        ...EMPTY_SESSION_STATE,
        working: { throughSeq: 10, items: kept.map((seq) => ({ seq })) },
      };
      await store.setState('t', 's', state);
      // A second state moves some flags back: only the changed rows are rewritten either way.
      await store.setState('t', 's', {
        ...state,
        working: { throughSeq: 12, items: [{ seq: 1 }, { seq: 12 }] },
      });
      await store.setState('t', 's', state);
      const rows = (await store.messages('t', 's')).map((r) => [r.seq, r.compacted]);
      const others = (await store.messages('t', 'other')).map((r) => r.compacted);
      handle.close();
      return { rows, others };
    };
    const one = await flags();
    const many = await flags(2);
    expect(many).toEqual(one);
    expect(one.others).toEqual([false, false]);
    expect(one.rows.filter(([, c]) => c).map(([seq]) => seq)).toEqual([1, 4, 6, 8, 9]);
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
