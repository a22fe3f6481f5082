/**
 * `GET /v1/usage` counts every upstream call the proxy made whose usage the provider reported, once,
 * whatever became of the session's log: a stateless call, a call whose turn could not be stored, a
 * stream cut after its usage arrived — and not again when the next call's history brings the unstored
 * answer back into the log, nor for an answer a client appends itself (no call of the service).
 * In workerd against the local fake provider.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'tally-tenant',
  // A short idle timeout, for the round that stalls while the tool loop holds it.
  () => ({ UPSTREAM_ANTHROPIC_API_KEY: 'sk-ant-env-secret-0123456789', UPSTREAM_IDLE_TIMEOUT_MS: '600' }),
  (r) => ({ w, fake, key } = r),
);

const post = (path: string, json: unknown, session?: string) =>
  w.request(path, { method: 'POST', key, headers: session ? { 'x-ctxkit-session': session } : {}, json });

const tokens = async () => (await client(w, key).get('/v1/usage')).body.tokens as Loose;

/** The tally's change since `before`, once it counted `calls` more calls (and, a moment later, still so). */
async function counted(before: Loose, calls: number): Promise<Loose> {
  await until(tokens, (t) => t.calls >= before.calls + calls);
  await new Promise((r) => setTimeout(r, 300));
  const t = await tokens();
  return {
    calls: t.calls - before.calls,
    input: t.input - before.input,
    cacheRead: t.cacheRead - before.cacheRead,
    cacheWrite: t.cacheWrite - before.cacheWrite,
    output: t.output - before.output,
  };
}

const event = (type: string, data: Loose) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
/** Anthropic's first event: the input side of the usage (and one output token) before any content. */
const messageStart = event('message_start', {
  message: {
    id: 'msg_cut',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    usage: {
      input_tokens: 120,
      cache_read_input_tokens: 6000,
      cache_creation_input_tokens: 80,
      output_tokens: 1,
    },
  },
});

/** What `messageStart` reported, as the tally counts it. */
const STARTED = { calls: 1, input: 120, cacheRead: 6000, cacheWrite: 80, output: 1 };

/** The record of the call `res` answered, once journaled. */
const journaled = (res: Response) =>
  until(
    async () => (await client(w, key).get(res.headers.get('x-ctxkit-journal')!)).body.call as Loose,
    (c) => c?.upstream !== undefined,
  );

const u = (t: string) => ({ role: 'user', content: t });
const a = (t: string) => ({ role: 'assistant', content: t });

describe('GET /v1/usage (what the proxy paid the upstream for)', () => {
  it('counts a stateless call (no x-ctxkit-session), answered whole', async () => {
    const before = await tokens();
    fake.script({ kind: 'answer', text: 'ok', usage: { input: 700, output: 12, cacheRead: 2048 } });
    const res = await post(OPENAI, { model: 'gpt-5', messages: [u('hi')] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ctxkit-session')).toBeNull();
    await res.arrayBuffer();
    expect(await counted(before, 1)).toEqual({
      calls: 1,
      input: 700,
      cacheRead: 2048,
      cacheWrite: 0,
      output: 12,
    });
  });

  it('counts a stateless streamed call', async () => {
    const before = await tokens();
    fake.script({ kind: 'answer', text: 'streamed', usage: { input: 90, output: 7, cacheWrite: 1500 } });
    const res = await post(ANTHROPIC, {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      stream: true,
      messages: [u('hi')],
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('message_stop');
    expect(await counted(before, 1)).toEqual({
      calls: 1,
      input: 90,
      cacheRead: 0,
      cacheWrite: 1500,
      output: 7,
    });
  });

  it('counts a session call whose turn could not be stored, and not again when the next call stores its answer', async () => {
    fake.script(
      { kind: 'answer', text: 'A1', usage: { input: 10, output: 1 } },
      { kind: 'answer', text: 'A2', usage: { input: 200, output: 20, cacheRead: 3000 } },
      { kind: 'answer', text: 'A3', usage: { input: 40, output: 4, cacheRead: 3500 } },
    );
    const first = await post(OPENAI, { model: 'gpt-4o', messages: [u('u1')] }, 'tally-wf');
    await first.arrayBuffer();
    await until(
      async () => (await client(w, key).get('/v1/sessions/tally-wf/messages')).body.messages.length,
      (n) => n === 2,
    );
    const before = await tokens();
    const db = await w.db();
    // A runtime error inside the turn's D1 batch (as proxy.test.ts's "the write of a turn").
    await db
      .prepare(
        "CREATE TRIGGER fail_tally BEFORE INSERT ON session_messages WHEN NEW.session_id = 'tally-wf' BEGIN SELECT json('{not json'); END",
      )
      .run();
    try {
      const failed = await post(
        OPENAI,
        { model: 'gpt-4o', messages: [u('u1'), a('A1'), u('u2')] },
        'tally-wf',
      );
      expect(failed.status).toBe(200);
      expect(failed.headers.get('x-ctxkit-warning')).toMatch(/could not be stored/);
      expect(((await failed.json()) as Loose).choices[0].message.content).toBe('A2');
      expect(await counted(before, 1)).toEqual({
        calls: 1,
        input: 200,
        cacheRead: 3000,
        cacheWrite: 0,
        output: 20,
      });
    } finally {
      await db.prepare('DROP TRIGGER fail_tally').run();
    }
    // The next call's history brings u2 and A2 back: they are logged now, and only the new call is counted.
    const again = await post(
      OPENAI,
      { model: 'gpt-4o', messages: [u('u1'), a('A1'), u('u2'), a('A2'), u('u3')] },
      'tally-wf',
    );
    expect(again.headers.get('x-ctxkit-appended')).toBe('3');
    await again.arrayBuffer();
    await until(
      async () => (await client(w, key).get('/v1/sessions/tally-wf/messages')).body.messages.length,
      (n) => n === 6,
    );
    expect(await counted(before, 2)).toEqual({
      calls: 2,
      input: 240,
      cacheRead: 6500,
      cacheWrite: 0,
      output: 24,
    });
  });

  it('counts a stream cut after its usage arrived, in the tally and the call’s journal', async () => {
    const before = await tokens();
    fake.script({
      kind: 'events',
      events: [
        messageStart,
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Half an ans' } }),
      ],
      end: 'destroy',
    });
    const res = await post(
      ANTHROPIC,
      { model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [u('go')] },
      'tally-cut',
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"error"');
    expect(await counted(before, 1)).toEqual(STARTED);
    const call = await journaled(res);
    expect(call.upstream).toMatchObject({
      status: 502,
      logged: false,
      usage: { inputTokens: 120, cacheReadTokens: 6000, cacheWriteTokens: 80 },
    });
  });

  it('counts a tool-loop round that stalls while held, after its usage arrived', async () => {
    const before = await tokens();
    fake.script({
      kind: 'events',
      events: [
        messageStart,
        event('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_r', name: 'recall', input: {} },
        }),
      ],
      end: false,
    });
    const res = await w.request(ANTHROPIC, {
      method: 'POST',
      key,
      headers: { 'x-ctxkit-session': 'tally-held', 'x-ctxkit-tools': 'on' },
      json: {
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        stream: true,
        messages: [u('what did we decide?')],
      },
    });
    expect(res.status).toBe(504);
    await res.arrayBuffer();
    expect(await counted(before, 1)).toEqual(STARTED);
    const call = await journaled(res);
    expect(call.upstream).toMatchObject({ status: 504, usage: { inputTokens: 120, cacheReadTokens: 6000 } });
    expect(call.upstream.rounds).toHaveLength(1);
  });

  it('counts nothing for an answer the client appends itself, sent twice under one Idempotency-Key', async () => {
    const c = client(w, key);
    expect((await c.post('/v1/sessions', { id: 'tally-own' })).status).toBe(201);
    const before = await tokens();
    const body = {
      format: 'openai',
      messages: [
        u('hi'),
        { role: 'assistant', content: 'hello', usage: { prompt_tokens: 500, completion_tokens: 5 } },
      ],
    };
    const replays: (string | null)[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await w.request('/v1/sessions/tally-own/messages', {
        method: 'POST',
        key,
        json: body,
        headers: { 'idempotency-key': 'tally-own-1' },
      });
      expect(r.status).toBeLessThan(300);
      await r.arrayBuffer();
      replays.push(r.headers.get('idempotent-replayed'));
    }
    expect(replays[1]).toBe('true');
    // A proxied call after them: the tally moves by that call alone.
    fake.script({ kind: 'answer', text: 'ok', usage: { input: 3, output: 1 } });
    await (await post(OPENAI, { model: 'gpt-4o', messages: [u('x')] })).arrayBuffer();
    expect(await counted(before, 1)).toEqual({ calls: 1, input: 3, cacheRead: 0, cacheWrite: 0, output: 1 });
  });
});
