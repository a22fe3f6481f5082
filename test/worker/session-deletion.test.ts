/**
 * Deleting a session deletes everything it owns — its log and state in D1, the memories ctxkit
 * extracted in it, the outputs it spilled to R2, and its Durable Object's storage (call journals,
 * settings, idempotency answers) — whether the clean-up cron finds it idle or a client deletes it;
 * and a session id used again starts empty. Against the bundled Worker in Miniflare, with the fake
 * provider as upstream.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const DAY = 86_400_000;

let w: RunningWorker;
let fake: FakeProvider;
let key: string;
let api: ReturnType<typeof client>;

useProxyWorker(
  'acme',
  () => ({ UPSTREAM_OPENAI_API_KEY: 'sk-env-0123456789abcdef' }),
  (r) => {
    ({ w, fake, key } = r);
    api = client(w, key);
  },
);

/** A session that owns one of everything: a spilled output, extracted memories, a proxy call's journal. */
async function furnished(id: string): Promise<{ blob: string; journal: string; memories: string[] }> {
  expect((await api.post('/v1/sessions', { id, config: { outputTruncation: { maxLines: 3 } } })).status).toBe(
    201,
  );
  const appended = await api.post(`/v1/sessions/${id}/messages`, {
    format: 'openai',
    messages: [
      { role: 'user', content: 'List the files. Always run the linter before a commit.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'c',
        content: Array.from({ length: 40 }, (_, i) => `entry-${i}.txt  4096  Nov 24 10:00`).join('\n'),
      },
      { role: 'assistant', content: 'We will use pnpm for the workspace, because npm is slow here.' },
    ],
  });
  const spill = appended.body.journal.find((j: { action: string }) => j.action === 'spilled');
  const res = await w.request(OPENAI, {
    method: 'POST',
    key,
    headers: { 'x-ctxkit-session': id },
    json: { model: 'gpt-4o', messages: [{ role: 'user', content: 'one more question' }] },
  });
  await res.text();
  const journal = res.headers.get('x-ctxkit-journal')!;
  expect((await api.post(`/v1/sessions/${id}/compact`, {})).status).toBe(200);
  const memories = (await api.get(`/v1/memories?session=${id}`)).body.memories.map((m: Loose) => m.id);
  return { blob: `/v1/blobs/${encodeURIComponent(spill.location.slice(5))}`, journal, memories };
}

async function expectGone(id: string, owned: { blob: string; journal: string; memories: string[] }) {
  expect((await api.get(`/v1/sessions/${id}`)).status).toBe(404);
  expect((await api.get(owned.blob)).status).toBe(404);
  expect((await api.get(owned.journal)).status).toBe(404);
  for (const m of owned.memories) expect((await api.get(`/v1/memories/${m}`)).status).toBe(404);
  expect((await api.get(`/v1/memories?session=${id}`)).body.memories).toEqual([]);
}

/** A first proxied call on `id` sending only "hi": what reached the provider and what the log holds. */
async function reuse(id: string) {
  const res = await w.request(OPENAI, {
    method: 'POST',
    key,
    headers: { 'x-ctxkit-session': id },
    json: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(res.status).toBe(200);
  await res.text();
  const sent = fake.requests.at(-1)!.body;
  const log = (await api.get(`/v1/sessions/${id}/messages`)).body.messages;
  return { sent: sent.messages, logged: log.map((r: Loose) => r.message.role) };
}

describe('deleting a session', () => {
  it('deletes everything an idle session owns when the clean-up cron runs, and its id starts empty again', async () => {
    const owned = await furnished('idle');
    expect(owned.memories.length).toBeGreaterThan(0);
    expect((await api.get(owned.journal)).status).toBe(200);
    const worker = await w.mf.getWorker();
    const run = await worker.scheduled({
      cron: '17 3 * * *',
      scheduledTime: new Date(Date.now() + 40 * DAY),
    });
    expect(run.outcome).toBe('ok');
    await expectGone('idle', owned);
    expect(await reuse('idle')).toEqual({
      sent: [{ role: 'user', content: 'hi' }],
      logged: ['user', 'assistant'],
    });
  });

  it('deletes everything a session owns when a client deletes it, and its id starts empty again', async () => {
    const owned = await furnished('gone');
    expect((await api.delete('/v1/sessions/gone')).status).toBe(204);
    await expectGone('gone', owned);
    expect(await reuse('gone')).toEqual({
      sent: [{ role: 'user', content: 'hi' }],
      logged: ['user', 'assistant'],
    });
  });

  it('keeps a session active within the idle days, and everything it owns, when the clean-up cron runs', async () => {
    const owned = await furnished('busy');
    const worker = await w.mf.getWorker();
    expect((await worker.scheduled({ cron: '17 3 * * *', scheduledTime: new Date() })).outcome).toBe('ok');
    expect((await api.get('/v1/sessions/busy')).status).toBe(200);
    expect((await api.get(owned.journal)).status).toBe(200);
    expect((await api.get(`/v1/memories?session=busy`)).body.memories).toHaveLength(owned.memories.length);
  });
});
