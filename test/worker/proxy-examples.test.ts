/**
 * The examples with the official SDKs (`openai`, `@anthropic-ai/sdk`) run unchanged against the
 * service in workerd, forwarding to a local fake provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAnthropicExample } from '../../examples/proxy-anthropic.ts';
import { runOpenAIExample } from '../../examples/proxy-openai.ts';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let fake: FakeProvider;
let key: string;
let url: string;

beforeAll(async () => {
  // PROXY_TEST_PORT + 1 when set (proxy.test.ts takes the port itself), else a port the OS picks.
  const base = process.env.PROXY_TEST_PORT;
  fake = await startFakeProvider({ port: base === undefined ? 0 : Number(base) + 1 });
  w = await startWorker({
    bindings: { UPSTREAM_OPENAI_BASE_URL: fake.openaiBase, UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase },
  });
  key = await w.createKey('examples');
  url = w.url.origin;
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});

async function until(session: string, n: number): Promise<Loose[]> {
  for (let i = 0; i < 100; i++) {
    const r = await client(w, key).get(`/v1/sessions/${session}/messages`);
    if (r.status === 200 && r.body.messages.length >= n) return r.body.messages;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`session ${session} did not reach ${n} messages`);
}

describe('examples/proxy-openai.ts', () => {
  it('runs a whole and a streamed call through the proxy with the openai SDK', async () => {
    fake.reset();
    fake.script(
      { kind: 'answer', text: 'The number of tokens a model reads at once.' },
      { kind: 'answer', text: 'They trim and summarise.', chunks: 4 },
    );
    const out = await runOpenAIExample({ url, key, session: 'ex-openai' });
    expect(out.first).toBe('The number of tokens a model reads at once.');
    expect(out.second).toBe('They trim and summarise.');
    expect(Number(out.tokensAfter)).toBeGreaterThan(0);
    expect(out.journal).toMatch(/^\/v1\/proxy\/sessions\/ex-openai\/calls\//);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    const rows = await until('ex-openai', 4);
    expect(rows.map((r) => r.message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});

describe('examples/proxy-anthropic.ts', () => {
  it('runs a whole and a streamed call through the proxy with the Anthropic SDK', async () => {
    fake.reset();
    fake.script(
      { kind: 'answer', text: 'The number of tokens a model reads at once.' },
      { kind: 'answer', text: 'They trim and summarise.', chunks: 4 },
    );
    const out = await runAnthropicExample({ url, key, session: 'ex-anthropic' });
    expect(out.first).toBe('The number of tokens a model reads at once.');
    expect(out.second).toBe('They trim and summarise.');
    expect(out.journal).toMatch(/^\/v1\/proxy\/sessions\/ex-anthropic\/calls\//);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    expect(fake.requests[1]!.body.stream).toBe(true);
    // The client's system first; the tenant's memory block (session recall) may follow it.
    // The system prompt comes as blocks, the last one a prompt-cache breakpoint (proxy-cache.test.ts).
    const system = fake.requests[0]!.body.system as Array<{ text: string; cache_control?: unknown }>;
    expect(system.map((b) => b.text).join('\n\n')).toMatch(/^You answer in one sentence\./);
    expect(system.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    const rows = await until('ex-anthropic', 4);
    expect(rows.map((r) => r.message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});
