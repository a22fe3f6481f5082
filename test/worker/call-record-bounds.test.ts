/**
 * Large answers in a session object's storage. A call record (the journal of a run, kept in the session object's storage for the call page) stays
 * within what one Durable Object value may hold: a compaction over thousands of messages journals one
 * entry per message, and a record over the value limit (2 MB) failed its write — a 500 on `compact`,
 * and a proxied turn reported unstored (its answer left unlogged) although its rows were in D1. The
 * stored answer of a keyed write is kept in pieces past 512 KiB: a keyed `compact` whose answer was
 * over 2 MB answered 500 after compacting, and its retry compacted again.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
/** ~260 bytes of journal each once compacted: 9,000 make a journal of ~2.3 MB. */
const MESSAGES = 9_000;

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'records',
  () => ({ MAX_BODY_BYTES: '1048576' }),
  (r) => ({ w, fake, key } = r),
);

const turns = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    role: (from + i) % 2 ? 'assistant' : 'user',
    content: `turn ${from + i}`,
  }));

describe('createCallLog', () => {
  it('keeps a compaction of 9,000 messages on record, its journal cut at its bound, when proxied', async () => {
    fake.script({ kind: 'answer', text: 'done' });
    const res = await w.request(OPENAI, {
      method: 'POST',
      key,
      headers: { 'x-ctxkit-session': 'many', 'x-ctxkit-window': '1024' },
      json: { model: 'gpt-4o', messages: turns(MESSAGES) },
    });
    expect(res.status).toBe(200);
    await res.text();
    expect(res.headers.get('x-ctxkit-warning')).toBeNull();
    const api = client(w, key);
    // The answer is logged (it was not, the turn's write having failed on its record).
    const stats = await until(
      () => api.get('/v1/sessions/many/stats'),
      (r) => r.body.log?.messages === MESSAGES + 1,
    );
    expect(stats.body.log.messages).toBe(MESSAGES + 1);
    const { call } = (await api.get(res.headers.get('x-ctxkit-journal')!)).body as Loose;
    expect(call.upstream).toMatchObject({ status: 200, logged: true });
    expect(call.journal.length).toBeGreaterThan(0);
    expect(call.journalCut.entries).toBeGreaterThan(0);
    expect(call.journal.length + call.journalCut.entries).toBeGreaterThan(MESSAGES - 100);
    expect(JSON.stringify(call.journal).length).toBeLessThanOrEqual(512 * 1024);
  });

  it('answers POST /compact over 9,000 messages with its whole journal and records it cut', async () => {
    await manyMessages('routes');
    const api = client(w, key);
    const compacted = await api.post('/v1/sessions/routes/compact', {});
    expect(compacted.status).toBe(200);
    const journal = compacted.body.journal as Loose[];
    const summarized = journal.filter((j) => j.action === 'summarized').length;
    expect(summarized).toBeGreaterThan(8_000);
    const { calls } = (await api.get('/v1/sessions/routes/view')).body as Loose;
    const last = calls.at(-1);
    expect(last.kind).toBe('compact');
    const { call } = (await api.get(`/v1/proxy/sessions/routes/calls/${last.id}`)).body as Loose;
    expect(call.journal.length).toBeLessThan(journal.length);
    expect(call.journal.length + call.journalCut.entries).toBe(journal.length);
    // The timeline counts every entry, those left out of the record included.
    expect(last.changes.summarized).toBe(summarized);
  });
});

/** A session of 9,000 short messages (18 appends of 500) with a 2,000-token window. */
async function manyMessages(id: string) {
  const api = client(w, key);
  expect((await api.post('/v1/sessions', { id, budget: { contextWindow: 2000 } })).status).toBe(201);
  for (let at = 0; at < MESSAGES; at += 500) {
    const messages = Array.from({ length: 500 }, (_, i) => ({
      role: (at + i) % 2 ? 'assistant' : 'user',
      parts: [{ type: 'text', text: `turn ${at + i}` }],
    }));
    expect((await api.post(`/v1/sessions/${id}/messages`, { messages })).status).toBe(201);
  }
}

describe('idempotentWrites', () => {
  it('replays a keyed compaction whose answer is over 2 MB, compacting once', async () => {
    await manyMessages('keyed');
    const compact = () =>
      w.request('/v1/sessions/keyed/compact', {
        method: 'POST',
        key,
        headers: { 'idempotency-key': 'big-1' },
        json: {},
      });
    const first = await compact();
    expect(first.status).toBe(200);
    const text = await first.text();
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024);
    const again = await compact();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(text);
    const { calls } = (await client(w, key).get('/v1/sessions/keyed/view')).body as Loose;
    expect(calls.filter((c: Loose) => c.kind === 'compact')).toHaveLength(1);
  });
});
