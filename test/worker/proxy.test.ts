/**
 * The drop-in proxy in workerd (Miniflare) against a local fake provider speaking OpenAI Chat
 * Completions and Anthropic Messages, whole and streamed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, fromAnthropic, fromOpenAI, fromResponses } from '../../src/core/index.ts';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';
import {
  ANTHROPIC_TOOLS,
  anthropicHistory,
  openAIHistory,
  RESPONSES_TOOLS,
  responsesHistory,
  TOOLS,
} from './support/proxy-history.ts';
import { until } from './support/until.ts';

const ENV_OPENAI_KEY = 'sk-env-secret-0123456789abcdef';
const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';
const RESPONSES = '/v1/proxy/openai/responses';
const WINDOW = 16_384;
/** The fake provider's port: `PROXY_TEST_PORT`, else one the OS picks (kept to restart it on). */
let fakePort = Number(process.env.PROXY_TEST_PORT ?? 0);

let w: RunningWorker;
let fake: FakeProvider;
let key: string;
let logs = '';

beforeAll(async () => {
  fake = await startFakeProvider({ port: fakePort });
  fakePort = Number(new URL(fake.openaiBase).port);
  w = await startWorker({
    bindings: {
      UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
      UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
      UPSTREAM_OPENAI_API_KEY: ENV_OPENAI_KEY,
    },
    onLog: (text) => {
      logs += text;
    },
  });
  key = await w.createKey('t1');
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
});

function post(
  path: string,
  json: unknown,
  headers: Record<string, string> = {},
  auth: 'bearer' | 'x-api-key' = 'bearer',
) {
  return w.request(path, {
    method: 'POST',
    ...(auth === 'bearer' ? { key } : {}),
    headers: auth === 'x-api-key' ? { 'x-api-key': key, ...headers } : headers,
    json,
  });
}

async function logged(session: string): Promise<Loose[]> {
  const r = await client(w, key).get(`/v1/sessions/${session}/messages`);
  expect(r.status).toBe(200);
  return r.body.messages;
}

/** Anthropic messages without the `cache_control` the proxy places, single text blocks as strings again. */
function withoutBreakpoints(messages: Loose[]): Loose[] {
  return messages.map((m) => {
    if (!Array.isArray(m.content)) return m;
    const content = m.content.map(({ cache_control: _, ...b }: Loose) => b);
    return { ...m, content: content.length === 1 && content[0].type === 'text' ? content[0].text : content };
  });
}

/** An Anthropic `system` as text (the proxy sends blocks, the last one a cache breakpoint). */
function systemText(system: unknown): string {
  return Array.isArray(system) ? system.map((b: Loose) => b.text).join('\n\n') : String(system);
}

/**
 * A streamed answer read in two parts: the first chunk while the fake provider still holds the rest
 * (what reached the client before `release`), then everything after it.
 */
async function readStream(res: Response, release: () => void): Promise<{ first: string; rest: string }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  release();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += decoder.decode(value, { stream: true });
  }
  return { first, rest };
}

/** A 200-message agent history that ends with the user's question. */
function openAI200() {
  return [...openAIHistory(50).slice(0, 199), { role: 'user', content: 'Summarize every module.' }];
}
function anthropic200() {
  return [...anthropicHistory(50).slice(0, 199), { role: 'user', content: 'Summarize every module.' }];
}

/** A file's bytes, or none when it was removed between the check and the read. */
function readFileSyncOrEmpty(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
}

describe('POST /v1/proxy/openai/chat/completions', () => {
  const system = { role: 'system', content: 'You are a careful code reader.' };
  const history = openAI200();
  let firstAnswer: Loose;

  it('sends a 200-message history of a 16K session under the window, pair-valid, other fields untouched', async () => {
    fake.script({
      kind: 'answer',
      toolCalls: [{ id: 'call_new', name: 'read_file', args: { path: 'README.md' } }],
    });
    const body = {
      model: 'gpt-4o',
      messages: [system, ...history],
      tools: TOOLS,
      temperature: 0.3,
      seed: 7,
      user: 'u1',
    };
    const res = await post(OPENAI, body, { 'x-ctxkit-session': 'oa-1', 'x-ctxkit-window': String(WINDOW) });
    expect(res.status).toBe(200);
    firstAnswer = ((await res.json()) as Loose).choices[0].message;
    expect(firstAnswer.tool_calls[0].id).toBe('call_new');
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!.body;
    expect({ model: sent.model, temperature: sent.temperature, seed: sent.seed, user: sent.user }).toEqual({
      model: 'gpt-4o',
      temperature: 0.3,
      seed: 7,
      user: 'u1',
    });
    expect(sent.tools).toEqual(TOOLS);
    expect(sent.messages[0]).toEqual(system);
    expect(JSON.stringify(body).length).toBeGreaterThan(WINDOW * 4 * 3);
    expect(countTokens(JSON.stringify({ messages: sent.messages, tools: sent.tools }))).toBeLessThan(WINDOW);
    expect(checkInvariants(fromOpenAI(sent.messages), { dialect: 'openai' })).toEqual([]);
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'Summarize every module.' });
    expect(Number(res.headers.get('x-ctxkit-tokens-before'))).toBeGreaterThan(WINDOW);
    expect(Number(res.headers.get('x-ctxkit-tokens-after'))).toBeLessThan(WINDOW);
    expect(['ok', 'warn', 'compact', 'block']).toContain(res.headers.get('x-ctxkit-level'));
    expect(res.headers.get('x-ctxkit-appended')).toBe('200');
    expect(res.headers.get('x-request-id')).toBe('req-fake');
    // Per-phase timings only with PROXY_TIMING=1 (bench:proxy).
    expect(res.headers.get('server-timing')).toBeNull();
    // The upstream gets the configured key, never the ctxkit key.
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${ENV_OPENAI_KEY}`);
  });

  it('appends exactly the 2 new messages on the next call and logs the answer with its usage', async () => {
    const rows = await logged('oa-1');
    expect(rows).toHaveLength(201);
    expect(rows[200].message.parts[0]).toMatchObject({ type: 'tool-call', id: 'call_new' });
    expect(rows[200].message.usage).toMatchObject({ inputTokens: 100, outputTokens: 10 });
    const next = [
      system,
      ...history,
      firstAnswer,
      { role: 'tool', tool_call_id: 'call_new', content: '# README\nctxkit keeps the context small.' },
      { role: 'user', content: 'And what does the README say?' },
    ];
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: next, tools: TOOLS },
      { 'x-ctxkit-session': 'oa-1' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ctxkit-appended')).toBe('2');
    await res.arrayBuffer();
    const after = await logged('oa-1');
    expect(after).toHaveLength(204);
    expect(after.slice(201, 203).map((r: Loose) => r.message.role)).toEqual(['tool', 'user']);
  });

  it('shows what a call did at the x-ctxkit-journal link', async () => {
    fake.script({ kind: 'answer', text: 'fine' });
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-ctxkit-session': 'j-1' },
    );
    await res.arrayBuffer();
    const link = res.headers.get('x-ctxkit-journal');
    expect(link).toMatch(/^\/v1\/proxy\/sessions\/j-1\/calls\/[0-9a-f-]{36}$/);
    // The upstream's outcome is journaled by a waitUntil after the answer is relayed: read until it is there.
    const r = await until(
      () => client(w, key).get(link!),
      (v) => v.status !== 200 || v.body.call?.upstream !== undefined,
    );
    expect(r.status).toBe(200);
    expect(r.body.call).toMatchObject({ provider: 'openai', model: 'gpt-4o', appended: 1, stream: false });
    expect(r.body.call.upstream).toMatchObject({ status: 200, logged: true, usage: { inputTokens: 100 } });
    expect(Array.isArray(r.body.call.reports)).toBe(true);
    const other = await w.createKey('t2');
    expect((await client(w, other).get(link!)).status).toBe(404);
    expect(
      (await client(w, key).get('/v1/proxy/sessions/j-1/calls/00000000-0000-4000-8000-000000000000')).status,
    ).toBe(404);
  });

  it('relays a streamed answer chunk by chunk and logs it whole with its usage', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const text = 'The quick brown fox jumps over the lazy dog.';
    fake.script({ kind: 'answer', text, chunks: 6, usage: { input: 321, output: 12 }, hold });
    const res = await post(
      OPENAI,
      {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Tell me a pangram.' }],
        stream: true,
        stream_options: { include_usage: true },
      },
      { 'x-ctxkit-session': 'st-1' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    // The first event arrives while the provider still holds the rest: nothing is buffered.
    const { first, rest } = await readStream(res, release);
    expect(first).toContain('"role":"assistant"');
    expect(first).not.toContain('quick');
    const events = (first + rest).split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    const deltas = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)))
      .map((c) => c.choices[0]?.delta?.content ?? '')
      .join('');
    expect(deltas).toBe(text);
    const rows = await until(
      () => logged('st-1'),
      (r) => r.length === 2,
    );
    expect(rows[1].message.parts).toEqual([{ type: 'text', text }]);
    expect(rows[1].message.usage).toMatchObject({ inputTokens: 321, outputTokens: 12 });
  });

  it('recovers from a context-length error and retries once; the client sees the retried answer', async () => {
    fake.script({ kind: 'overflow' }, { kind: 'answer', text: 'after the retry' });
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: [system, ...openAI200()] },
      { 'x-ctxkit-session': 'ov-1', 'x-ctxkit-window': '200000' },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as Loose).choices[0].message.content).toBe('after the retry');
    expect(res.headers.get('x-ctxkit-retried')).toBe('1');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.bytes).toBeLessThan(fake.requests[0]!.bytes);
    expect(checkInvariants(fromOpenAI(fake.requests[1]!.body.messages), { dialect: 'openai' })).toEqual([]);
    const r = await client(w, key).get(res.headers.get('x-ctxkit-journal')!);
    expect(r.body.call.overflow).toMatchObject({ retry: true });
    expect(r.body.call.overflow.error).toContain('maximum context length');
  });

  it('passes other provider errors through with their status and body, without a retry', async () => {
    fake.script({ kind: 'status', status: 429, message: 'slow down' });
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-ctxkit-session': 'err-1' },
    );
    expect(res.status).toBe(429);
    expect(((await res.json()) as Loose).error.message).toBe('slow down');
    expect(res.headers.get('x-request-id')).toBe('req-fake');
    expect(fake.requests).toHaveLength(1);
  });

  it('runs a stateless pre-flight without x-ctxkit-session', async () => {
    fake.script({ kind: 'answer', text: 'stateless' });
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: openAI200() },
      { 'x-ctxkit-window': String(WINDOW) },
    );
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('x-ctxkit-journal')).toBeNull();
    expect(Number(res.headers.get('x-ctxkit-tokens-after'))).toBeLessThan(WINDOW);
    const sent = fake.requests[0]!.body;
    expect(countTokens(JSON.stringify(sent.messages))).toBeLessThan(WINDOW);
    expect(checkInvariants(fromOpenAI(sent.messages), { dialect: 'openai' })).toEqual([]);
  });
});

describe('POST /v1/proxy/anthropic/v1/messages', () => {
  const system = 'You are a careful code reader.';
  const history = anthropic200();
  let firstAnswer: Loose;

  it('takes the key as x-api-key and sends a 200-message history under a 16K window, pair-valid', async () => {
    fake.script({
      kind: 'answer',
      text: 'Reading it.',
      toolCalls: [{ id: 'toolu_new', name: 'read_file', args: { path: 'README.md' } }],
    });
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      system,
      messages: history,
      tools: ANTHROPIC_TOOLS,
      metadata: { user_id: 'u1' },
    };
    const res = await post(
      ANTHROPIC,
      body,
      { 'x-ctxkit-session': 'an-1', 'x-ctxkit-window': String(WINDOW), 'anthropic-version': '2023-06-01' },
      'x-api-key',
    );
    expect(res.status).toBe(200);
    firstAnswer = await res.json();
    const sent = fake.requests[0]!.body;
    expect({ model: sent.model, max_tokens: sent.max_tokens, metadata: sent.metadata }).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 1024,
      metadata: { user_id: 'u1' },
    });
    expect(sent.tools).toEqual(ANTHROPIC_TOOLS);
    expect(systemText(sent.system)).toMatch(/^You are a careful code reader\./);
    expect(
      countTokens(JSON.stringify({ system: sent.system, messages: sent.messages, tools: sent.tools })),
    ).toBeLessThan(WINDOW);
    expect(
      checkInvariants(fromAnthropic({ system: sent.system, messages: sent.messages }), {
        dialect: 'anthropic',
      }),
    ).toEqual([]);
    expect(res.headers.get('x-ctxkit-appended')).toBe('200');
    expect(fake.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
    expect(fake.requests[0]!.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('appends exactly the 2 new messages on the next call', async () => {
    const next = [
      ...history,
      { role: 'assistant', content: firstAnswer.content },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_new', content: '# README' },
          { type: 'text', text: 'What does it say?' },
        ],
      },
    ];
    const res = await post(
      ANTHROPIC,
      { model: 'claude-sonnet-4-6', max_tokens: 1024, system, messages: next },
      { 'x-ctxkit-session': 'an-1' },
      'x-api-key',
    );
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('x-ctxkit-appended')).toBe('2');
    expect(await logged('an-1')).toHaveLength(204);
  });

  it('relays a streamed answer with a tool call and logs it whole with its usage', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    fake.script({
      kind: 'answer',
      text: 'Let me look.',
      toolCalls: [{ id: 'toolu_s', name: 'read_file', args: { path: 'src/a.ts' } }],
      usage: { input: 555, output: 44 },
      hold,
    });
    const res = await post(
      ANTHROPIC,
      {
        model: 'claude-sonnet-4-6',
        max_tokens: 256,
        stream: true,
        messages: [{ role: 'user', content: 'Open a.ts' }],
      },
      { 'x-ctxkit-session': 'ast-1' },
      'x-api-key',
    );
    expect(res.status).toBe(200);
    const { first, rest } = await readStream(res, release);
    expect(first).toContain('message_start');
    expect(first).not.toContain('content_block_start');
    expect(rest).toContain('event: message_stop');
    const rows = await until(
      () => logged('ast-1'),
      (r) => r.length === 2,
    );
    expect(rows[1].message.parts).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool-call', id: 'toolu_s', name: 'read_file', args: { path: 'src/a.ts' } },
    ]);
    expect(rows[1].message.usage).toMatchObject({
      inputTokens: 555,
      outputTokens: 44,
      stopReason: 'tool_use',
    });
  });

  it('recovers from "prompt is too long" without a session and retries once', async () => {
    fake.script({ kind: 'overflow' }, { kind: 'answer', text: 'short enough now' });
    const res = await post(
      ANTHROPIC,
      { model: 'claude-sonnet-4-6', max_tokens: 64, messages: anthropic200() },
      {},
      'x-api-key',
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as Loose).content[0].text).toBe('short enough now');
    expect(res.headers.get('x-ctxkit-retried')).toBe('1');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.bytes).toBeLessThan(fake.requests[0]!.bytes);
  });
});

describe('POST /v1/proxy/openai/responses', () => {
  const instructions = 'You are a careful code reader.';
  const history = [
    ...responsesHistory(50).slice(0, 199),
    { role: 'user', content: 'Summarize every module.' },
  ];
  let firstOutput: Loose[];

  it('sends a 200-item history of a 16K session under the window, pair-valid, other fields untouched', async () => {
    fake.script({
      kind: 'answer',
      toolCalls: [{ id: 'call_new', name: 'read_file', args: { path: 'README.md' } }],
    });
    const body = {
      model: 'gpt-4.1',
      instructions,
      input: history,
      tools: RESPONSES_TOOLS,
      store: false,
      reasoning: { effort: 'low' },
    };
    const res = await post(RESPONSES, body, {
      'x-ctxkit-session': 'rs-1',
      'x-ctxkit-window': String(WINDOW),
    });
    expect(res.status).toBe(200);
    firstOutput = ((await res.json()) as Loose).output;
    const sent = fake.requests[0]!.body;
    expect(fake.requests[0]!.path).toBe('/v1/responses');
    expect({
      model: sent.model,
      instructions: sent.instructions,
      store: sent.store,
      reasoning: sent.reasoning,
    }).toEqual({
      model: 'gpt-4.1',
      instructions,
      store: false,
      reasoning: { effort: 'low' },
    });
    expect(sent.tools).toEqual(RESPONSES_TOOLS);
    expect(
      countTokens(JSON.stringify({ instructions: sent.instructions, input: sent.input, tools: sent.tools })),
    ).toBeLessThan(WINDOW);
    expect(checkInvariants(fromResponses(sent.input), { dialect: 'responses' })).toEqual([]);
    expect(res.headers.get('x-ctxkit-appended')).toBe('200');
    expect(Number(res.headers.get('x-ctxkit-tokens-before'))).toBeGreaterThan(WINDOW);
  });

  it('appends exactly the 2 new items on the next call', async () => {
    const next = [
      ...history,
      ...firstOutput,
      { type: 'function_call_output', call_id: 'call_new', output: '# README' },
      { role: 'user', content: 'What does it say?' },
    ];
    const res = await post(
      RESPONSES,
      { model: 'gpt-4.1', instructions, input: next },
      { 'x-ctxkit-session': 'rs-1' },
    );
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('x-ctxkit-appended')).toBe('2');
    expect(await logged('rs-1')).toHaveLength(204);
  });

  it('relays a streamed answer chunk by chunk and logs it whole with its usage', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    fake.script({
      kind: 'answer',
      text: 'Streaming through ctxkit.',
      chunks: 4,
      usage: { input: 77, output: 5 },
      hold,
    });
    const res = await post(
      RESPONSES,
      { model: 'gpt-4.1', input: 'Say something.', stream: true },
      { 'x-ctxkit-session': 'rst-1' },
    );
    expect(res.status).toBe(200);
    const { first, rest } = await readStream(res, release);
    expect(first).toContain('response.created');
    expect(first).not.toContain('output_text.delta');
    expect(rest).toContain('response.completed');
    const rows = await until(
      () => logged('rst-1'),
      (r) => r.length === 2,
    );
    expect(rows[1].message.parts.map((p: Loose) => p.text)).toEqual(['Streaming through ctxkit.']);
    expect(rows[1].message.usage).toMatchObject({ inputTokens: 77, outputTokens: 5 });
  });

  it('recovers from a context-length error and retries once', async () => {
    fake.script({ kind: 'overflow' }, { kind: 'answer', text: 'after the retry' });
    const res = await post(
      RESPONSES,
      { model: 'gpt-4.1', input: history },
      { 'x-ctxkit-session': 'rov-1', 'x-ctxkit-window': '200000' },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as Loose).output[0].content[0].text).toBe('after the retry');
    expect(res.headers.get('x-ctxkit-retried')).toBe('1');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.bytes).toBeLessThan(fake.requests[0]!.bytes);
  });

  it('refuses previous_response_id, whose history ctxkit cannot see', async () => {
    const res = await post(RESPONSES, { model: 'gpt-4.1', input: 'hi', previous_response_id: 'resp_1' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Loose).error.path).toBe('previous_response_id');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('proxy sessions', () => {
  it('follows a regenerated turn: the dropped answer leaves the context, the next call appends only what is new', async () => {
    fake.script(
      { kind: 'answer', text: 'A1' },
      { kind: 'answer', text: 'A2' },
      { kind: 'answer', text: 'A3' },
      { kind: 'answer', text: 'A4' },
    );
    // The tenant's memory block (from other sessions' compactions) comes first as a system message.
    const conversation = (i: number) =>
      fake.requests[i]!.body.messages.filter((m: Loose) => m.role !== 'system');
    const call = async (messages: unknown[]) => {
      const res = await post(OPENAI, { model: 'gpt-4o', messages }, { 'x-ctxkit-session': 'rg-1' });
      await res.arrayBuffer();
      return res;
    };
    const u = (t: string) => ({ role: 'user', content: t });
    const a = (t: string) => ({ role: 'assistant', content: t });
    await call([u('u1')]);
    await call([u('u1'), a('A1'), u('u2')]);
    const again = await call([u('u1'), a('A1'), u('u2')]);
    expect(again.headers.get('x-ctxkit-diverged')).toBe('1');
    expect(again.headers.get('x-ctxkit-appended')).toBe('0');
    expect(conversation(2)).toEqual([u('u1'), a('A1'), u('u2')]);
    const next = await call([u('u1'), a('A1'), u('u2'), a('A3'), u('u3')]);
    expect(next.headers.get('x-ctxkit-diverged')).toBeNull();
    expect(next.headers.get('x-ctxkit-appended')).toBe('1');
    expect(conversation(3)).toEqual([u('u1'), a('A1'), u('u2'), a('A3'), u('u3')]);
  });
});

describe('what is forwarded for the logged messages', () => {
  it("sends the client's own copy of a message the log holds: a moved cache breakpoint moves upstream too", async () => {
    fake.script({ kind: 'answer', text: 'A1' }, { kind: 'answer', text: 'A2' });
    const block = (text: string, cached: boolean) => ({
      type: 'text',
      text,
      ...(cached ? { cache_control: { type: 'ephemeral' } } : {}),
    });
    const call = async (messages: unknown[]) => {
      const res = await post(
        ANTHROPIC,
        { model: 'claude-sonnet-4-6', max_tokens: 64, messages },
        { 'x-ctxkit-session': 'cc-1' },
        'x-api-key',
      );
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return res;
    };
    await call([{ role: 'user', content: [block('u1', true)] }]);
    await until(
      () => logged('cc-1'),
      (rows) => rows.length === 2,
    );
    const second = await call([
      { role: 'user', content: [block('u1', false)] },
      { role: 'assistant', content: [block('A1', false)] },
      { role: 'user', content: [block('u2', true)] },
    ]);
    expect(second.headers.get('x-ctxkit-appended')).toBe('1');
    expect(fake.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: 'A1' },
      { role: 'user', content: [block('u2', true)] },
    ]);
  });
});

describe('a history the previous call already brought', () => {
  it('converts again only what is new or changed, and still names a bad new message by its index', async () => {
    fake.script({ kind: 'answer', text: 'A1' }, { kind: 'answer', text: 'A2' });
    const u = (t: string) => ({ role: 'user', content: t });
    const a = (t: string) => ({ role: 'assistant', content: t });
    const call = async (messages: unknown[]) =>
      post(OPENAI, { model: 'gpt-4o', messages }, { 'x-ctxkit-session': 'hm-1' });
    await (await call([u('u1')])).arrayBuffer();
    const bad = await call([u('u1'), a('A1'), { role: 'bogus', content: 'x' }]);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Loose).error.path).toBe('messages[2].role');
    // An edited first message: the text differs there, so nothing of the previous call is reused.
    const edited = await call([u('u1 edited'), a('A1'), u('u2')]);
    expect(edited.status).toBe(200);
    await edited.arrayBuffer();
    expect(edited.headers.get('x-ctxkit-diverged')).toBe('1');
    expect(fake.requests[1]!.body.messages.filter((m: Loose) => m.role !== 'system')).toEqual([
      u('u1 edited'),
      a('A1'),
      u('u2'),
    ]);
  });
});

describe('a history the previous call already brought (Anthropic)', () => {
  it('reuses the converted messages, a tool result split off its user message included', async () => {
    fake.script({ kind: 'answer', text: 'A2' }, { kind: 'answer', text: 'A3' });
    const call = async (messages: unknown[]) =>
      post(
        ANTHROPIC,
        { model: 'claude-sonnet-4-6', max_tokens: 64, messages },
        { 'x-ctxkit-session': 'hm-2' },
        'x-api-key',
      );
    const history = [
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'read', input: { p: 'a' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'tu1', content: 'file a' },
          { type: 'text', text: 'and now?' },
        ],
      },
    ];
    const first = await call(history);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(first.headers.get('x-ctxkit-appended')).toBe('4');
    await until(
      () => logged('hm-2'),
      (rows) => rows.length === 5,
    );
    const bad = await call([
      ...history,
      { role: 'assistant', content: 'A2' },
      // A known block without its fields (an unknown block type passes through as an opaque part).
      { role: 'user', content: [{ type: 'text' }] },
    ]);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Loose).error.path).toMatch(/^messages\[4\]\.content/);
    const next = await call([
      ...history,
      { role: 'assistant', content: 'A2' },
      { role: 'user', content: 'go on' },
    ]);
    expect(next.status).toBe(200);
    await next.arrayBuffer();
    expect(next.headers.get('x-ctxkit-appended')).toBe('1');
    // As the client sent them, but for the prompt-cache breakpoints the proxy adds (proxy-cache.test.ts).
    expect(withoutBreakpoints(fake.requests[1]!.body.messages)).toEqual([
      ...history,
      { role: 'assistant', content: 'A2' },
      { role: 'user', content: 'go on' },
    ]);
  });
});

describe('the write of a turn', () => {
  const u = (t: string) => ({ role: 'user', content: t });
  const a = (t: string) => ({ role: 'assistant', content: t });
  const call = (session: string, messages: unknown[]) =>
    post(OPENAI, { model: 'gpt-4o', messages }, { 'x-ctxkit-session': session });
  const sessionRow = async (session: string) =>
    (await w.db())
      .prepare('SELECT last_seq AS lastSeq, state FROM sessions WHERE id = ?')
      .bind(session)
      .first<{ lastSeq: number; state: string }>();

  it('relays the paid answer when the D1 write fails during the upstream call, and the next call stores the turn', async () => {
    fake.script(
      { kind: 'answer', text: 'A1' },
      { kind: 'answer', text: 'A2' },
      { kind: 'answer', text: 'A3' },
    );
    await (await call('wf-1', [u('u1')])).arrayBuffer();
    await until(
      () => logged('wf-1'),
      (rows) => rows.length === 2,
    );
    const before = await sessionRow('wf-1');
    const db = await w.db();
    // A runtime error inside the batch (not a constraint, which would read as a concurrent append).
    await db
      .prepare(
        "CREATE TRIGGER fail_wf1 BEFORE INSERT ON session_messages WHEN NEW.session_id = 'wf-1' BEGIN SELECT json('{not json'); END",
      )
      .run();
    try {
      const failed = await call('wf-1', [u('u1'), a('A1'), u('u2')]);
      // The upstream was paid for: its answer reaches the client, which is told the turn is not stored.
      expect(failed.status).toBe(200);
      expect(((await failed.json()) as Loose).choices[0].message.content).toBe('A2');
      expect(failed.headers.get('x-ctxkit-warning')).toMatch(/not be stored; the next call/);
      expect(failed.headers.get('x-ctxkit-journal')).toBeNull();
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests[1]!.body.messages.at(-1)).toEqual(u('u2'));
    } finally {
      await db.prepare('DROP TRIGGER fail_wf1').run();
    }
    expect((await logged('wf-1')).map((r: Loose) => r.message.parts[0].text)).toEqual(['u1', 'A1']);
    expect(await sessionRow('wf-1')).toEqual(before);
    // The next call's history brings the turn and its answer back: both are stored then.
    const again = await call('wf-1', [u('u1'), a('A1'), u('u2'), a('A2'), u('u3')]);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ctxkit-appended')).toBe('3');
    expect(((await again.json()) as Loose).choices[0].message.content).toBe('A3');
    const rows = await until(
      () => logged('wf-1'),
      (r) => r.length === 6,
    );
    expect(rows.map((r: Loose) => r.message.parts[0].text)).toEqual(['u1', 'A1', 'u2', 'A2', 'u3', 'A3']);
  });

  it("lets the session's other routes read the turn's writes, and answers only once D1 holds them", async () => {
    fake.script({ kind: 'answer', text: 'A1' }, { kind: 'answer', text: 'A2' });
    await (await call('rw-1', [u('u1')])).arrayBuffer();
    await until(
      () => logged('rw-1'),
      (rows) => rows.length === 2,
    );
    const pending = call('rw-1', [u('u1'), a('A1'), u('u2')]);
    await until(
      async () => fake.requests.length,
      (n) => n === 2,
    );
    // The context is upstream and its rows may still be on their way to D1: the session object's
    // queue holds this prepare until they are in.
    const prepared = await client(w, key).post('/v1/sessions/rw-1/prepare', { dialect: 'openai' });
    expect(prepared.status).toBe(200);
    const context = prepared.body.messages.filter((m: Loose) => m.role !== 'system');
    expect(context.slice(0, 3)).toEqual([u('u1'), a('A1'), u('u2')]);
    const res = await pending;
    expect(res.status).toBe(200);
    // Read straight from D1 by the Worker as soon as the answer is in.
    expect((await logged('rw-1')).slice(0, 3).map((r: Loose) => r.message.parts[0].text)).toEqual([
      'u1',
      'A1',
      'u2',
    ]);
    expect(((await res.json()) as Loose).choices[0].message.content).toBe('A2');
  });
});

describe('proxy boundaries', () => {
  it('refuses unknown upstreams and requests that try to pick one', async () => {
    const other = await post('/v1/proxy/gemini/v1beta/models/x:generateContent', { contents: [] });
    expect(other.status).toBe(404);
    expect(((await other.json()) as Loose).error.code).toBe('not_found');
    const picked = await post(
      OPENAI,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { 'x-upstream-base-url': 'https://evil.example' },
    );
    expect(picked.status).toBe(400);
    expect(((await picked.json()) as Loose).error.path).toBe('headers.x-upstream-base-url');
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects bad input with a ctxkit 4xx naming what is wrong', async () => {
    const hi = [{ role: 'user', content: 'hi' }];
    const cases: Array<[Response, number, string | null]> = [
      [
        await w.request(OPENAI, {
          method: 'POST',
          key,
          headers: { 'content-type': 'application/json' },
          body: '{"model":',
        }),
        400,
        'body',
      ],
      [await post(OPENAI, { model: 'gpt-4o' }), 400, 'messages'],
      [await post(OPENAI, { model: 'gpt-4o', messages: [] }), 400, 'messages'],
      [await post(OPENAI, { messages: hi }), 400, 'model'],
      [
        await post(OPENAI, { model: 'gpt-4o', messages: [{ role: 'robot', content: 'x' }] }),
        400,
        'messages[0].role',
      ],
      [
        await post(OPENAI, { model: 'gpt-4o', messages: hi }, { 'x-ctxkit-session': '../etc' }),
        400,
        'headers.x-ctxkit-session',
      ],
      [
        await post(OPENAI, { model: 'gpt-4o', messages: hi }, { 'x-ctxkit-window': '12abc' }),
        400,
        'headers.x-ctxkit-window',
      ],
      [
        await post(OPENAI, { model: 'gpt-4o', messages: hi }, { 'x-ctxkit-window': '100' }),
        400,
        'headers.x-ctxkit-window',
      ],
      [
        await post(OPENAI, { model: 'gpt-4o', messages: hi }, { 'x-ctxkit-preset': 'fast' }),
        400,
        'headers.x-ctxkit-preset',
      ],
      [await post(OPENAI, { model: 'g'.repeat(257), messages: hi }), 400, 'model'],
      [await post(RESPONSES, { model: '', input: 'hi' }), 400, 'model'],
      [
        await post(
          ANTHROPIC,
          {
            model: 'claude-x',
            messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }],
          },
          {},
          'x-api-key',
        ),
        400,
        'messages[0].content',
      ],
      [
        await w.request(OPENAI, {
          method: 'POST',
          key,
          headers: { 'content-type': 'text/plain' },
          body: '{}',
        }),
        415,
        'headers.content-type',
      ],
      [
        await w.request(OPENAI, { method: 'POST', json: { model: 'gpt-4o', messages: hi } }),
        401,
        'headers.authorization',
      ],
      [
        await w.request(OPENAI, {
          method: 'POST',
          headers: { 'x-api-key': key },
          json: { model: 'gpt-4o', messages: hi },
        }),
        401,
        'headers.authorization',
      ],
    ];
    for (const [res, status, path] of cases) {
      expect(res.status).toBe(status);
      const body = (await res.json()) as Loose;
      expect(body.error.path).toBe(path);
      expect(typeof body.error.message).toBe('string');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('never stores or logs the upstream key', async () => {
    const perRequest = 'sk-ant-per-request-key-9f8e7d6c5b4a';
    fake.script(
      { kind: 'answer', text: 'one' },
      { kind: 'answer', text: 'two' },
      { kind: 'overflow' },
      { kind: 'status', status: 500, message: 'boom' },
    );
    const calls = [
      { stream: false, messages: [{ role: 'user', content: 'a' }] },
      {
        stream: true,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'one' },
          { role: 'user', content: 'b' },
        ],
      },
      // A history the log does not hold (it diverges), too long for the provider: recovered, retried, and a 500.
      { stream: false, messages: anthropic200() },
    ];
    for (const c of calls) {
      const res = await post(
        ANTHROPIC,
        { model: 'claude-sonnet-4-6', max_tokens: 16, ...c },
        { 'x-ctxkit-session': 'key-1', 'x-upstream-api-key': perRequest },
        'x-api-key',
      );
      await res.arrayBuffer();
    }
    expect(fake.requests.map((r) => r.headers['x-api-key'])).toEqual([
      perRequest,
      perRequest,
      perRequest,
      perRequest,
    ]);
    await until(
      () => logged('key-1'),
      (r) => r.length >= 4,
    );
    const db = await w.db();
    const tables = await db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all<{ name: string }>();
    let dump = '';
    for (const { name } of tables.results)
      if (!name.startsWith('_cf') && !name.startsWith('sqlite'))
        dump += JSON.stringify((await db.prepare(`SELECT * FROM "${name}"`).all()).results);
    expect(dump).toContain('key-1');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(w.persistDir);
    expect(files.length).toBeGreaterThan(0);
    // An unreachable upstream is logged (so the log channel is live here), without the key.
    await fake.close();
    const down = await post(
      ANTHROPIC,
      { model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] },
      { 'x-upstream-api-key': perRequest },
      'x-api-key',
    );
    expect(down.status).toBe(502);
    expect(((await down.json()) as Loose).error.code).toBe('upstream_unreachable');
    fake = await startFakeProvider({ port: fakePort });
    await until(
      async () => logs,
      (l) => l.includes('upstream unreachable'),
    );
    for (const secret of [perRequest, ENV_OPENAI_KEY]) {
      expect(dump).not.toContain(secret);
      for (const f of files) {
        // A SQLite side file (-shm, -wal) removed since the walk (its object closed its database) holds nothing.
        const bytes = readFileSyncOrEmpty(f);
        expect(bytes.includes(secret), f).toBe(false);
      }
      expect(logs).not.toContain(secret);
    }
  });
});
