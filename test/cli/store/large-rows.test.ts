/**
 * The SQL session store with a blob store for messages too large for a row (src/db/sql/large-rows.ts),
 * on SQLite with a threshold of 1,000 characters: the row holds a pointer, every read gives the message
 * whole, a tampered or lost blob is a storage error, a deleted session takes its blobs along; and the
 * reads the service pages with (pages bounded in rows and bytes, rows by seq range, ids, stored bytes).
 */
import { describe, expect, it } from 'vitest';
import { isCtxError, type Message } from '../../../src/core/index.ts';
import type { LargeValues } from '../../../src/db/sql/large-rows.ts';
import { createSqlSessionStore } from '../../../src/db/sql/sql-session-store.ts';
import { openSqlite } from '../../../src/db/sqlite/index.ts';

const msg = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });

function mapValues(): LargeValues & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    async put(tenant, session, key, text) {
      map.set(`${tenant}/${session}/${key}`, text);
    },
    async get(tenant, session, key) {
      return map.get(`${tenant}/${session}/${key}`);
    },
    async drop(tenant, session) {
      for (const k of [...map.keys()]) if (k.startsWith(`${tenant}/${session}/`)) map.delete(k);
    },
  };
}

async function open() {
  const handle = openSqlite({ path: ':memory:' });
  const large = mapValues();
  const store = createSqlSessionStore(handle, { large, largeRowChars: 1000 });
  await store.create({ tenant: 't', id: 's' });
  return { handle, large, store };
}

describe('createSqlSessionStore with large values', () => {
  it('keeps a message over the threshold in the blob store, its row a pointer, and reads it back whole', async () => {
    const { handle, large, store } = await open();
    const big = msg('big', 'é'.repeat(5000));
    await store.append('t', 's', [msg('small', 'hi'), big]);
    const rows = handle.client
      .prepare('SELECT message_id, message, text FROM session_messages ORDER BY seq')
      .all() as Array<{
      message_id: string;
      message: string;
      text: string;
    }>;
    expect(rows[0]!.message).toBe(JSON.stringify(msg('small', 'hi')));
    expect(rows[1]!.message).toMatch(/^\{"\$stored":\{"key":"[0-9a-f]{64}","bytes":10062,/);
    expect(rows[1]!.text.length).toBe(500);
    expect(large.map.size).toBe(1);
    expect((await store.messages('t', 's')).map((r) => r.message)).toEqual([msg('small', 'hi'), big]);
    expect(await store.storedBytes('t', 's')).toBe(JSON.stringify(msg('small', 'hi')).length + 10_062);
  });

  it('puts the blobs of prepared rows once, and a retried append puts the same key', async () => {
    const { large, store } = await open();
    const big = msg('big', 'x'.repeat(3000));
    expect(await store.prepareRows('t', 's', [big])).toBe(JSON.stringify(big).length);
    await store.append('t', 's', [big]);
    await store.append('t', 's', [{ ...big, id: 'big2' }]);
    expect(large.map.size).toBe(2);
  });

  it('is a storage error, naming the row, when a blob was lost or changed', async () => {
    const { large, store } = await open();
    await store.append('t', 's', [msg('big', 'x'.repeat(3000))]);
    const [k] = [...large.map.keys()];
    large.map.set(k!, JSON.stringify(msg('big', 'y'.repeat(3000))));
    const read = await store.messages('t', 's').catch((e: unknown) => e);
    expect(isCtxError(read, 'storage_error')).toBe(true);
    expect((read as Error).message).toMatch(/seq 1 of session s/);
  });

  it('drops a session’s blobs with the session', async () => {
    const { large, store } = await open();
    await store.append('t', 's', [msg('big', 'x'.repeat(3000))]);
    await store.delete('t', 's');
    expect(large.map.size).toBe(0);
  });

  it('pages the log by rows and bytes, reads rows by seq ranges, and ids alone', async () => {
    const { store } = await open();
    await store.append('t', 's', [msg('a', '1'), msg('b', 'x'.repeat(3000)), msg('c', '3'), msg('d', '4')]);
    const first = await store.page('t', 's', { limit: 2 });
    expect([first.rows.map((r) => r.seq), first.next]).toEqual([[1, 2], 2]);
    const rest = await store.page('t', 's', { afterSeq: 2, limit: 5 });
    expect([rest.rows.map((r) => r.seq), rest.next]).toEqual([[3, 4], null]);
    const byBytes = await store.page('t', 's', { limit: 10, maxBytes: 200 });
    expect([byBytes.rows.map((r) => r.seq), byBytes.next]).toEqual([[1], 1]);
    const large = await store.page('t', 's', { afterSeq: 1, limit: 10, maxBytes: 200 });
    expect(large.rows.map((r) => r.seq)).toEqual([2]);
    expect(
      (
        await store.rowsIn('t', 's', [
          [4, 4],
          [1, 2],
        ])
      ).map((r) => r.message.id),
    ).toEqual(['a', 'b', 'd']);
    expect(await store.messageIds('t', 's')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('pages the sessions newest first from a cursor', async () => {
    const handle = openSqlite({ path: ':memory:' });
    let now = 1000;
    const store = createSqlSessionStore(handle, { clock: { now: () => now++ } });
    for (const id of ['s1', 's2', 's3']) await store.create({ tenant: 't', id });
    const one = await store.listPage('t', { limit: 2 });
    expect(one.sessions.map((s) => s.id)).toEqual(['s3', 's2']);
    const two = await store.listPage('t', { limit: 2, after: one.next! });
    expect([two.sessions.map((s) => s.id), two.next]).toEqual([['s1'], null]);
  });
});
