import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker();
  api = client(w, await w.createKey('acme'));
  await api.post('/v1/sessions', { id: 'busy' });
});
afterAll(async () => {
  await w?.dispose();
});

describe('SessionObject', () => {
  it('stores exactly 100 messages in order when 100 appends arrive at once', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api.post('/v1/sessions/busy/messages', {
          messages: [{ role: 'user', parts: [{ type: 'text', text: `n${i}` }] }],
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(100).fill(201));
    const seqOf = new Map(replies.map((r, i) => [`n${i}`, r.body.appended[0].seq as number]));
    expect([...seqOf.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));

    const log = await api.get('/v1/sessions/busy/messages');
    const rows = log.body.messages as Array<{
      seq: number;
      message: { id: string; parts: Array<{ text: string }> };
    }>;
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The row at each seq holds the message whose append was answered with that seq, under id m<seq>.
    for (const row of rows) {
      const text = row.message.parts[0]!.text;
      expect([text, row.seq, row.message.id]).toEqual([text, seqOf.get(text), `m${row.seq}`]);
    }
    expect((await api.get('/v1/sessions/busy')).body.session.lastSeq).toBe(100);
  });

  it('answers 409 to a compaction requested while another one runs', async () => {
    // The summarizer's first call never answers until its 3 s timeout: the first compaction is
    // still running when the second request arrives.
    const server = await startFakeOpenAIServer({ script: [{ kind: 'hang' }] });
    const slow = await startWorker({
      bindings: {
        CTXKIT_LLM_BASE_URL: server.baseURL,
        CTXKIT_LLM_MODEL: 'fake-model',
        CTXKIT_LLM_MAX_RETRIES: '0',
        CTXKIT_LLM_TIMEOUT_MS: '3000',
      },
    });
    try {
      const api2 = client(slow, await slow.createKey('acme'));
      await api2.post('/v1/sessions', { id: 'c' });
      await api2.post('/v1/sessions/c/messages', {
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'one' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'two' }] },
        ],
      });
      const first = api2.post('/v1/sessions/c/compact', {});
      for (let i = 0; i < 200 && server.requests.length === 0; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(server.requests).toHaveLength(1);
      const second = await api2.post('/v1/sessions/c/compact', {});
      expect([second.status, second.body.error.code]).toEqual([409, 'conflict']);
      expect(second.body.error.message).toContain('already running');
      expect((await first).status).toBe(200);
      expect(server.requests).toHaveLength(1);
    } finally {
      await slow.dispose();
      await server.close();
    }
  });
});
