import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, neutralUser } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let a: ReturnType<typeof client>;
let b: ReturnType<typeof client>;
let memoryId: string;
let blobPath: string;

beforeAll(async () => {
  w = await startWorker();
  a = client(w, await w.createKey('tenant-a'));
  b = client(w, await w.createKey('tenant-b'));
  await a.post('/v1/sessions', { id: 'shared-name', config: { outputTruncation: { maxLines: 5 } } });
  const appended = await a.post('/v1/sessions/shared-name/messages', {
    format: 'openai',
    messages: [
      { role: 'user', content: 'secret plan' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'cat', arguments: '{}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'c',
        content: Array.from({ length: 40 }, (_, i) => `secret line ${i}`).join('\n'),
      },
    ],
  });
  const spill = appended.body.journal.find((j: { action: string }) => j.action === 'spilled');
  blobPath = `/v1/blobs/${encodeURIComponent(spill.location.slice('blob:'.length))}`;
  memoryId = (
    await a.post('/v1/memories', { type: 'project', title: 'Secret', content: 'the launch code is 1234' })
  ).body.memory.id;
});
afterAll(async () => {
  await w?.dispose();
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's session, on every route", async () => {
    const paths = [
      '/v1/sessions/shared-name',
      '/v1/sessions/shared-name/messages',
      '/v1/sessions/shared-name/stats',
    ];
    for (const p of paths) expect([p, (await b.get(p)).status]).toEqual([p, 404]);
    expect((await b.post('/v1/sessions/shared-name/prepare', {})).status).toBe(404);
    expect((await b.post('/v1/sessions/shared-name/compact', {})).status).toBe(404);
    expect((await b.post('/v1/sessions/shared-name/clear')).status).toBe(404);
    expect(
      (await b.post('/v1/sessions/shared-name/messages', { messages: [neutralUser('x', 'hi')] })).status,
    ).toBe(404);
    expect((await b.delete('/v1/sessions/shared-name')).status).toBe(404);
  });

  it('lets each tenant use the same session id for its own session', async () => {
    expect((await b.post('/v1/sessions', { id: 'shared-name' })).status).toBe(201);
    expect((await b.get('/v1/sessions/shared-name/stats')).body.log.messages).toBe(0);
    expect((await a.get('/v1/sessions/shared-name/stats')).body.log.messages).toBe(3);
  });

  it("lists only the tenant's own sessions", async () => {
    await a.post('/v1/sessions', { id: 'only-a' });
    const ids = (await b.get('/v1/sessions')).body.sessions.map((s: { id: string }) => s.id);
    expect(ids).not.toContain('only-a');
  });

  it("hides another tenant's memories from get, list, search and delete", async () => {
    expect((await b.get(`/v1/memories/${memoryId}`)).status).toBe(404);
    expect((await b.get('/v1/memories')).body.memories).toEqual([]);
    expect((await b.post('/v1/memories/search', { query: 'launch code' })).body.hits).toEqual([]);
    expect((await b.delete(`/v1/memories/${memoryId}`)).status).toBe(404);
    expect((await a.get(`/v1/memories/${memoryId}`)).status).toBe(200);
  });

  it("answers 404 for another tenant's spilled output", async () => {
    expect((await a.get(blobPath)).status).toBe(200);
    expect((await b.get(blobPath)).status).toBe(404);
  });
});
