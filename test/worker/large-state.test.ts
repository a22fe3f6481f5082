/**
 * A session state too large for one D1 value (src/db/sql/large-state.ts). The state holds a digest
 * per message of the last send: a context of 20,000 tiny messages makes one of some 300,000
 * characters, and 100,000 messages (`PROXY_MAX_MESSAGES`'s default, with a 1M-token window) one past
 * D1's 2 MB per value — which production refuses (local D1 does not) with every later turn of the
 * session. Kept in R2 beside the session's large messages, the row holds a pointer, and the session
 * goes on.
 */
import { describe, expect, it } from 'vitest';
import { LARGE_STATE_CHARS } from '../../src/db/sql/large-state.ts';
import { client } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

let w: RunningWorker;
let key: string;
useProxyWorker(
  'large-state',
  () => ({}),
  (r) => ({ w, key } = r),
);

const history = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));

const call = (session: string, messages: unknown[]) =>
  w.request('/v1/proxy/openai/chat/completions', {
    method: 'POST',
    key,
    headers: { 'x-ctxkit-session': session, 'x-ctxkit-window': '1000000' },
    json: { model: 'gpt-4.1', messages },
  });

async function stateColumn(session: string): Promise<string> {
  const db = await w.db();
  const row = await db
    .prepare('SELECT state FROM sessions WHERE tenant = ?1 AND id = ?2')
    .bind('large-state', session)
    .first<{ state: string }>();
  return row!.state;
}

describe('createStateCodec', () => {
  it('keeps a state over LARGE_STATE_CHARS out of its row, and the session goes on from it', async () => {
    const first = history(20_001);
    const res = await call('big', first);
    expect([res.status, res.headers.get('x-ctxkit-warning')]).toEqual([200, null]);
    const answer = ((await res.json()) as { choices: Array<{ message: unknown }> }).choices[0]!.message;
    const column = await until(
      () => stateColumn('big'),
      (s) => s.startsWith('{"$storedState":'),
    );
    expect(column.length).toBeLessThan(1_000);
    const { bytes } = (JSON.parse(column) as { $storedState: { bytes: number } }).$storedState;
    expect(bytes).toBeGreaterThan(LARGE_STATE_CHARS);
    // The next turn reads that state back: the history matches (the answer was logged), one row appended.
    const next = await call('big', [...first, answer, { role: 'user', content: 'and now?' }]);
    expect([
      next.status,
      next.headers.get('x-ctxkit-warning'),
      next.headers.get('x-ctxkit-appended'),
    ]).toEqual([200, null, '1']);
    await next.text();
    const stats = await until(
      () => client(w, key).get('/v1/sessions/big/stats'),
      (r) => r.body.log?.messages === 20_004,
    );
    expect(stats.status).toBe(200);
    // One state blob kept: the one the row points at (the first one removed once replaced).
    const after = await until(
      () => stateColumn('big'),
      (s) => s !== column,
    );
    expect(after.startsWith('{"$storedState":')).toBe(true);
    const bucket = (await w.mf.getR2Bucket('BLOBS')) as unknown as R2Bucket;
    const kept = await until(
      async () =>
        (await bucket.list({ prefix: 't/' })).objects.map((o) => o.key).filter((k) => k.includes('/state.')),
      (keys) => keys.length === 1,
    );
    const pointed = (JSON.parse(after) as { $storedState: { key: string } }).$storedState.key;
    expect(kept[0]!.endsWith(`/${pointed}`)).toBe(true);
  });

  it('keeps a small state in its row', async () => {
    const res = await call('small', history(3));
    expect(res.status).toBe(200);
    await res.text();
    const column = await until(
      () => stateColumn('small'),
      (s) => s.includes('"pipeline"'),
    );
    expect(column.startsWith('{"pipeline"')).toBe(true);
  });
});
