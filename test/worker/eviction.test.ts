import { afterAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let server: FakeOpenAIServer | undefined;
let w: RunningWorker | undefined;

afterAll(async () => {
  await w?.dispose();
  await server?.close();
});

const SUMMARY = JSON.stringify({
  summary: '## Goal\nShip the parser.\n## Work done\nRead a.ts and b.ts; fixed the tokenizer.',
  memories: [],
});

function turns(n: number) {
  const messages: unknown[] = [];
  for (let i = 0; i < n; i++) {
    messages.push({
      role: 'user',
      content: `Step ${i}: please look at file${i}.ts and explain it in detail`,
    });
    messages.push({
      role: 'assistant',
      content: `File${i}.ts defines parser helper ${i}. ${'It tokenizes input. '.repeat(20)}`,
    });
  }
  return messages;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('SessionObject eviction', () => {
  it('loses nothing and compacts again when the runtime dies mid-compaction', async () => {
    server = await startFakeOpenAIServer({
      script: [{ kind: 'hang' }],
      fallback: { kind: 'answer', content: SUMMARY },
    });
    const bindings = {
      CTXKIT_LLM_BASE_URL: server.baseURL,
      CTXKIT_LLM_MODEL: 'fake-model',
      CTXKIT_LLM_API_KEY: 'test-key',
      CTXKIT_LLM_MAX_RETRIES: '0',
      CTXKIT_LLM_TIMEOUT_MS: '600000',
    };
    w = await startWorker({ bindings });
    const key = await w.createKey('acme');
    let api = client(w, key);
    await api.post('/v1/sessions', { id: 'long', budget: { contextWindow: 32000 } });
    expect(
      (await api.post('/v1/sessions/long/messages', { format: 'openai', messages: turns(12) })).status,
    ).toBe(201);

    // Start a compaction whose summarizer call never answers, and kill the runtime under it.
    const pending = api
      .post('/v1/sessions/long/compact', { instructions: 'Keep file names.' })
      .catch((e: unknown) => e);
    await until(() => server!.requests.length >= 1, 'the summarizer call');
    const during = await api.get('/v1/sessions/long/stats');
    expect(during.body.compaction.running).toBe(true);
    await w.dispose({ keepState: true });
    await pending;

    // Same persisted state, new runtime.
    w = await startWorker({ persistDir: w.persistDir, migrate: false, bindings });
    api = client(w, key);
    const after = await api.get('/v1/sessions/long/stats');
    expect(after.status).toBe(200);
    expect([after.body.log.messages, after.body.context.messages, after.body.session.lastSeq]).toEqual([
      24, 24, 24,
    ]);
    expect(after.body.compaction.running).toBe(false);
    expect(typeof after.body.compaction.interruptedAt).toBe('number');

    // Compaction runs again, to the end this time.
    const again = await api.post('/v1/sessions/long/compact', { instructions: 'Keep file names.' });
    expect(again.status).toBe(200);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    const done = await api.get('/v1/sessions/long/stats');
    expect(done.body.compaction).toEqual({ running: false, interruptedAt: null });
    expect(done.body.log.messages).toBe(24);
    expect(done.body.context.messages).toBeLessThan(24);

    // And the session still takes writes, numbered after the old ones.
    const next = await api.post('/v1/sessions/long/messages', {
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'go on' }] }],
    });
    expect(next.body.appended).toEqual([{ seq: 25, id: 'm25' }]);
  });
});
