/**
 * The usage of the proxy's own tool rounds (`x-ctxkit-tools`), in workerd against the fake provider:
 * a model that rereads twice before it answers costs the tenant three upstream calls, and the call's
 * record, `GET /v1/usage` and `x-ctxkit-tool-usage` hold what all of them reported (cache reads and
 * writes included), in each dialect, while the body keeps the provider's own usage of the final answer.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider, ProviderReply } from '../support/fake-provider-server.ts';
import { rawChatAnswer } from '../support/raw-chat-answer.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { anthropicHistory, openAIHistory, responsesHistory } from './support/proxy-history.ts';
import { useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

const PATH = {
  openai: '/v1/proxy/openai/chat/completions',
  anthropic: '/v1/proxy/anthropic/v1/messages',
  responses: '/v1/proxy/openai/responses',
} as const;
const FACT = 'DEPLOY NOTE: the release token is BLUE-HERON-42.';

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'tool-usage',
  () => ({ UPSTREAM_ANTHROPIC_API_KEY: 'sk-ant-test', PROXY_TOOL_ROUNDS: '3' }),
  (r) => ({ w, fake, key } = r),
);

const headers = (session: string) => ({
  'x-ctxkit-session': session,
  'x-ctxkit-window': '16384',
  'x-ctxkit-tools': 'on',
});
const post = (path: string, json: unknown, session: string) =>
  w.request(path, { method: 'POST', key, json, headers: headers(session) });

interface Dialect {
  path: string;
  /** A request of a long history whose first tool output holds FACT, ending with `question`. */
  body(question: string, extra?: Loose): Loose;
  history: 'messages' | 'input';
}

/** The assistant's answer `text` and a new question (plain-text content: every dialect takes it). */
const followUp = (text: string, question: string): Loose[] => [
  { role: 'assistant', content: text },
  { role: 'user', content: question },
];

const DIALECTS: Record<'openai' | 'anthropic' | 'responses', Dialect> = {
  openai: {
    path: PATH.openai,
    history: 'messages',
    body: (q, extra = {}) => {
      const h = openAIHistory(40) as Loose[];
      h[2].content = `${FACT}\n${h[2].content}`;
      return { model: 'gpt-4o', messages: [...h.slice(0, 159), { role: 'user', content: q }], ...extra };
    },
  },
  anthropic: {
    path: PATH.anthropic,
    history: 'messages',
    body: (q, extra = {}) => {
      const h = anthropicHistory(40) as Loose[];
      h[2].content[0].content = `${FACT}\n${h[2].content[0].content}`;
      return {
        model: 'claude-sonnet-4-5',
        max_tokens: 512,
        messages: [...h.slice(0, 159), { role: 'user', content: q }],
        ...extra,
      };
    },
  },
  responses: {
    path: PATH.responses,
    history: 'input',
    body: (q, extra = {}) => {
      const h = responsesHistory(40) as Loose[];
      h[2].output = `${FACT}\n${h[2].output}`;
      return { model: 'gpt-4o', input: [...h.slice(0, 159), { role: 'user', content: q }], ...extra };
    },
  },
};

/** The first call's usage (before the rereads): no cache fields. */
const FIRST = { input: 100, output: 5 };
const ROUND_1 = { input: 1000, output: 20, cacheRead: 9000, cacheWrite: 500 };
const ROUND_2 = { input: 1200, output: 30, cacheRead: 9500, cacheWrite: 700 };
const FINAL = { input: 1300, output: 40, cacheRead: 10_000, cacheWrite: 900 };

/**
 * A first call that leaves FACT out of the context, then a call whose model rereads FACT's ref twice
 * (each round with its own usage) and answers: the second call's response and its journal link.
 */
async function rereadTwice(d: Dialect, session: string, stream: boolean, cacheWrites: boolean) {
  const extra = stream ? { stream: true, stream_options: { include_usage: true } } : {};
  const first = d.body('Go on.');
  fake.script({ kind: 'answer', text: 'ok', usage: FIRST });
  const res0 = await post(d.path, first, session);
  expect(res0.status).toBe(200);
  await res0.arrayBuffer();
  const found = await client(w, key).post(`/v1/sessions/${session}/recall`, { query: 'release token' });
  const ref = found.body.hits[0].ref as string;
  expect(ref).toMatch(/^[ms][0-9a-f]{12}$/);
  fake.reset();
  const usage = ({ cacheWrite, ...u }: typeof ROUND_1) => (cacheWrites ? { ...u, cacheWrite } : u);
  const round = (id: string, u: typeof ROUND_1): ProviderReply => ({
    kind: 'answer',
    toolCalls: [{ id, name: 'reread', args: { ref } }],
    usage: usage(u),
  });
  fake.script(round('call_r1', ROUND_1), round('call_r2', ROUND_2), {
    kind: 'answer',
    text: 'It is BLUE-HERON-42.',
    usage: usage(FINAL),
  });
  const body = d.body('Go on.', extra);
  body[d.history] = [...body[d.history], ...followUp('ok', 'What is the release token?')];
  if (d.path === PATH.anthropic && stream) delete body.stream_options;
  if (d.path === PATH.responses) delete body.stream_options;
  const res = await post(d.path, body, session);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(fake.requests).toHaveLength(3);
  expect(JSON.stringify(fake.requests[2]!.body)).toContain('BLUE-HERON-42');
  return { res, text };
}

async function journaled(res: Response): Promise<Loose> {
  const link = res.headers.get('x-ctxkit-journal')!;
  return until(
    async () => (await client(w, key).get(link)).body.call as Loose,
    (c) => c?.upstream?.usage !== undefined,
  );
}

/** The header and the record of a call whose rounds and answer reported no cache writes (OpenAI). */
async function openAISums(res: Response): Promise<Loose> {
  expect(res.headers.get('x-ctxkit-tool-usage')).toBe(
    'input=2200, output=50, cache_read=18500, cache_write=0',
  );
  const call = await journaled(res);
  expect(call.upstream.usage).toMatchObject({ inputTokens: 3500, outputTokens: 90, cacheReadTokens: 28_500 });
  return call;
}

const tokens = async () => (await client(w, key).get('/v1/usage')).body.tokens as Loose;

describe('the proxy tool loop’s usage (x-ctxkit-tool-usage, upstream.rounds, GET /v1/usage)', () => {
  it('records the rounds’ and the answer’s usage summed, each round apart, when Anthropic answers a streamed call', async () => {
    const before = await tokens();
    const { res, text } = await rereadTwice(DIALECTS.anthropic, 'tu-an', true, true);
    expect(text).toContain('message_stop');
    expect(text).not.toContain('tool_use');
    expect(res.headers.get('x-ctxkit-tool-rounds')).toBe('2');
    expect(res.headers.get('x-ctxkit-tool-usage')).toBe(
      'input=2200, output=50, cache_read=18500, cache_write=1200',
    );
    // The stream's own usage stays the final answer's, as the provider sent it.
    expect(text).toContain('"cache_read_input_tokens":10000');
    const call = await journaled(res);
    expect(call.upstream).toMatchObject({ status: 200, toolRounds: 2, logged: true });
    expect(call.upstream.usage).toMatchObject({
      inputTokens: 3500,
      outputTokens: 90,
      cacheReadTokens: 28_500,
      cacheWriteTokens: 2100,
    });
    expect(call.upstream.rounds.map((r: Loose) => r.usage)).toEqual([
      {
        inputTokens: 1000,
        outputTokens: 20,
        cacheReadTokens: 9000,
        cacheWriteTokens: 500,
        stopReason: 'tool_use',
      },
      {
        inputTokens: 1200,
        outputTokens: 30,
        cacheReadTokens: 9500,
        cacheWriteTokens: 700,
        stopReason: 'tool_use',
      },
    ]);
    // Two calls counted: the first (FIRST) and this one, its rounds included.
    const after = await until(tokens, (t) => t.calls >= before.calls + 2);
    expect(after.calls - before.calls).toBe(2);
    expect(after.input - before.input).toBe(3500 + FIRST.input);
    expect(after.output - before.output).toBe(90 + FIRST.output);
    expect(after.cacheRead - before.cacheRead).toBe(28_500);
    expect(after.cacheWrite - before.cacheWrite).toBe(2100);
  });

  it('records the sums in the journal, /v1/usage and the header when Chat Completions answers whole', async () => {
    const before = await tokens();
    const { res, text } = await rereadTwice(DIALECTS.openai, 'tu-oa', false, false);
    const body = JSON.parse(text) as Loose;
    // The body's usage is the provider's, of the final answer only.
    expect(body.usage).toMatchObject({
      prompt_tokens: 11_300,
      prompt_tokens_details: { cached_tokens: 10_000 },
    });
    const call = await openAISums(res);
    expect(call.upstream.rounds).toHaveLength(2);
    const after = await until(tokens, (t) => t.calls >= before.calls + 2);
    expect(after.input - before.input).toBe(3500 + FIRST.input);
    expect(after.output - before.output).toBe(90 + FIRST.output);
    expect(after.cacheRead - before.cacheRead).toBe(28_500);
  });

  it('records the sums when Chat Completions streams with include_usage', async () => {
    const { res, text } = await rereadTwice(DIALECTS.openai, 'tu-oa-s', true, false);
    expect(text).toContain('data: [DONE]');
    expect(text).not.toContain('tool_calls');
    const call = await openAISums(res);
    expect(call.upstream.rounds.map((r: Loose) => r.usage.inputTokens)).toEqual([1000, 1200]);
  });

  it('records the sums when the Responses API answers whole', async () => {
    const { res } = await rereadTwice(DIALECTS.responses, 'tu-rs', false, false);
    const call = await openAISums(res);
    expect(call.upstream.rounds.map((r: Loose) => r.usage.cacheReadTokens)).toEqual([9000, 9500]);
  });
});

describe('the proxy tool loop’s usage, bounded', () => {
  it('ignores a round’s negative, absurd or non-numeric counts and never stores NaN', async () => {
    const before = await tokens();
    fake.script(
      rawChatAnswer('bad1', { prompt_tokens: -7, completion_tokens: 20 }),
      rawChatAnswer('bad2', {
        prompt_tokens: 1000,
        completion_tokens: 10,
        total_tokens: -1,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 'many' },
      }),
      rawChatAnswer('bad3', { prompt_tokens: 1e15, completion_tokens: 3 }),
    );
    fake.script({ kind: 'answer', text: 'It is BLUE-HERON-42.', usage: { input: 50, output: 5 } });
    const res = await post(PATH.openai, DIALECTS.openai.body('Release token?'), 'tu-bad');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('x-ctxkit-tool-rounds')).toBe('3');
    expect(res.headers.get('x-ctxkit-tool-usage')).toBe(
      'input=600, output=10, cache_read=400, cache_write=0',
    );
    const call = await journaled(res);
    expect(call.upstream.rounds).toEqual([
      {},
      { usage: { inputTokens: 600, outputTokens: 10, cacheReadTokens: 400, stopReason: 'tool_calls' } },
      {},
    ]);
    expect(call.upstream.usage).toMatchObject({ inputTokens: 650, outputTokens: 15, cacheReadTokens: 400 });
    const after = await until(tokens, (t) => t.calls > before.calls);
    expect(after.input - before.input).toBe(650);
    expect(after.output - before.output).toBe(15);
    for (const v of Object.values(after)) expect(Number.isFinite(v)).toBe(true);
  });

  it('counts every paid round when the model keeps calling the tools and the call ends in a 502', async () => {
    const before = await tokens();
    const loop: ProviderReply = {
      kind: 'answer',
      toolCalls: [{ id: 'cl', name: 'recall', args: { query: 'again' } }],
      usage: { input: 100, output: 10, cacheRead: 50 },
    };
    fake.script(loop, loop, loop, loop, loop);
    const res = await post(PATH.openai, DIALECTS.openai.body('Loop?'), 'tu-loop');
    expect(res.status).toBe(502);
    await res.arrayBuffer();
    // PROXY_TOOL_ROUNDS=3 answered, the fourth still called them: four upstream calls paid.
    expect(fake.requests).toHaveLength(4);
    const call = await journaled(res);
    expect(call.upstream.status).toBe(502);
    expect(call.upstream.rounds).toHaveLength(4);
    expect(call.upstream.usage).toMatchObject({ inputTokens: 400, outputTokens: 40, cacheReadTokens: 200 });
    const after = await until(tokens, (t) => t.calls > before.calls);
    expect(after.input - before.input).toBe(400);
    expect(after.cacheRead - before.cacheRead).toBe(200);
  });
});
