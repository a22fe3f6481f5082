/**
 * The proxy and the provider's prompt cache, in workerd against the local fake provider: the hints
 * it adds where the client set none (Anthropic breakpoints, OpenAI's `prompt_cache_key`), the client's
 * own passed untouched, and the cached tokens the upstream reports recorded per call and per tenant.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider, ProviderReply } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';
const RESPONSES = '/v1/proxy/openai/responses';
const EPHEMERAL = { type: 'ephemeral' };

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'cache-tenant',
  () => ({
    UPSTREAM_ANTHROPIC_API_KEY: 'sk-ant-env-secret-0123456789',
  }),
  (r) => ({ w, fake, key } = r),
);

const post = (path: string, json: unknown, session: string) =>
  w.request(path, { method: 'POST', key, headers: { 'x-ctxkit-session': session }, json });

/** Where `cache_control` sits in a request body: `system[j]`, `messages[i][j]`, `tools[k]`. */
function breakpoints(body: Loose): string[] {
  const at: string[] = [];
  const blocks = (v: unknown) => (Array.isArray(v) ? (v as Loose[]) : []);
  for (const [j, b] of blocks(body.system).entries()) if (b.cache_control) at.push(`system[${j}]`);
  for (const [k, t] of blocks(body.tools).entries()) if (t.cache_control) at.push(`tools[${k}]`);
  for (const [i, m] of blocks(body.messages).entries())
    for (const [j, b] of blocks(m.content).entries()) if (b.cache_control) at.push(`messages[${i}][${j}]`);
  return at;
}

const anthropicTurn = (extra: Loose = {}) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 512,
  system: 'You are a coding agent.',
  messages: [
    { role: 'user', content: 'Run the tests.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '2 failed' }] },
  ],
  ...extra,
});

describe('the proxy (prompt-cache hints)', () => {
  it('forwards Anthropic breakpoints on the system prompt, the end of the previous send and the last message when the client set none', async () => {
    fake.script({ kind: 'answer', text: 'ok' });
    const res = await post(ANTHROPIC, anthropicTurn(), 'cache-a1');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const sent = fake.requests[0]!.body as Loose;
    expect(sent.system).toEqual([
      { type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL },
    ]);
    expect(breakpoints(sent)).toEqual(['system[0]', 'messages[0][0]', 'messages[2][0]']);
    expect(sent.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
  });

  it('passes the client’s own breakpoints untouched and adds none', async () => {
    fake.script({ kind: 'answer', text: 'ok' });
    const turn = anthropicTurn({
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL }],
    });
    const res = await post(ANTHROPIC, turn, 'cache-a2');
    await res.arrayBuffer();
    const sent = fake.requests[0]!.body as Loose;
    expect(breakpoints(sent)).toEqual(['system[0]']);
    expect(sent.system).toEqual(turn.system);
  });

  it('sets one prompt_cache_key per session for OpenAI when the client set none, and keeps the client’s', async () => {
    const body = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] };
    for (const s of ['cache-o1', 'cache-o1', 'cache-o2']) {
      fake.script({ kind: 'answer', text: 'ok' });
      await (await post(OPENAI, { ...body, messages: [...body.messages] }, s)).arrayBuffer();
    }
    fake.script({ kind: 'answer', text: 'ok' });
    await (await post(OPENAI, { ...body, prompt_cache_key: 'mine' }, 'cache-o3')).arrayBuffer();
    const keys = fake.requests.map((r) => (r.body as Loose).prompt_cache_key);
    expect(keys[0]).toMatch(/^ctxkit-[0-9a-f]{16}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[3]).toBe('mine');
  });
});

describe('the proxy (cached tokens reported by the upstream)', () => {
  /** Posts `body` in `session` with the upstream reporting `usage`: the call's journaled usage and the tally's change. */
  async function recorded(
    path: string,
    body: unknown,
    session: string,
    usage: NonNullable<Extract<ProviderReply, { kind: 'answer' }>['usage']>,
  ) {
    const before = (await client(w, key).get('/v1/usage')).body.tokens as Loose;
    fake.script({ kind: 'answer', text: 'ok', usage });
    const res = await post(path, body, session);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const link = res.headers.get('x-ctxkit-journal')!;
    const call = await until(
      async () => (await client(w, key).get(link)).body.call as Loose,
      (c) => c.upstream?.usage !== undefined,
    );
    const after = await until(
      async () => (await client(w, key).get('/v1/usage')).body.tokens as Loose,
      (t) => t.calls > before.calls,
    );
    const tally = {
      input: after.input - before.input,
      cacheRead: after.cacheRead - before.cacheRead,
      cacheWrite: after.cacheWrite - before.cacheWrite,
    };
    return { usage: call.upstream.usage as Loose, tally, after };
  }

  it('records Anthropic’s cache reads and writes in the call journal and the tenant’s usage', async () => {
    const r = await recorded(ANTHROPIC, anthropicTurn(), 'cache-u1', {
      input: 200,
      output: 10,
      cacheRead: 4000,
      cacheWrite: 300,
    });
    expect(r.usage).toMatchObject({ inputTokens: 200, cacheReadTokens: 4000, cacheWriteTokens: 300 });
    expect(r.tally).toEqual({ input: 200, cacheRead: 4000, cacheWrite: 300 });
    expect(r.after.cacheHitRate).toBeGreaterThan(0);
  });

  it('records OpenAI’s cached prompt tokens as cache reads, the rest as input', async () => {
    const body = { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] };
    const r = await recorded(OPENAI, body, 'cache-u2', { input: 904, output: 10, cacheRead: 4096 });
    expect(r.usage).toMatchObject({ inputTokens: 904, cacheReadTokens: 4096 });
    expect(r.tally).toEqual({ input: 904, cacheRead: 4096, cacheWrite: 0 });
  });

  it('records the cache writes GPT-5.6 reports inside the prompt, Chat Completions and Responses', async () => {
    const calls: Array<[string, unknown]> = [
      [OPENAI, { model: 'gpt-5.6', messages: [{ role: 'user', content: 'hi' }] }],
      [RESPONSES, { model: 'gpt-5.6', input: 'hi' }],
    ];
    for (const [path, body] of calls) {
      const usage = { input: 300, output: 10, cacheRead: 2048, cacheWrite: 1200 };
      const r = await recorded(path, body, `cache-w-${path.length}`, usage);
      expect(r.usage).toMatchObject({ inputTokens: 300, cacheReadTokens: 2048, cacheWriteTokens: 1200 });
      expect(r.tally).toEqual({ input: 300, cacheRead: 2048, cacheWrite: 1200 });
    }
  });
});
