/**
 * The proxy when the provider misbehaves: it hangs, answers late, stalls or breaks a stream, answers
 * bytes that are not JSON, or refuses with 429 — and when the client goes away mid-stream. Timeouts
 * are set short (300 ms) through the Worker's environment, as an operator would.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';
const TIMEOUT = 300;

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  't1',
  () => ({
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(TIMEOUT),
    UPSTREAM_IDLE_TIMEOUT_MS: String(TIMEOUT),
  }),
  (r) => ({ w, fake, key } = r),
);

function post(path: string, json: unknown, headers: Record<string, string> = {}) {
  const auth = path === ANTHROPIC ? { headers: { 'x-api-key': key, ...headers } } : { key, headers };
  return w.request(path, { method: 'POST', ...auth, json });
}

const ask = (content: string, stream = false) => ({
  model: 'gpt-4o',
  stream,
  messages: [{ role: 'user', content }],
});
const chunk = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
const DONE = 'data: [DONE]\n\n';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
}

async function logged(session: string): Promise<Loose[]> {
  return (await client(w, key).get(`/v1/sessions/${session}/messages`)).body.messages;
}

async function journal(res: Response): Promise<Loose> {
  const link = res.headers.get('x-ctxkit-journal');
  for (let i = 0; i < 50; i++) {
    const r = await client(w, key).get(link!);
    if (r.body.call?.upstream) return r.body.call;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the call was never journaled');
}

describe('the proxy under provider faults', () => {
  it("answers a hanging provider with a 504 in the provider's own shape within the timeout", async () => {
    fake.script({ kind: 'hang' });
    const [res, ms] = await timed(() => post(OPENAI, ask('hello'), { 'x-ctxkit-session': 'hang-1' }));
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: { type: 'timeout', code: 'upstream_timeout' } });
    expect(ms).toBeLessThan(TIMEOUT + 1500);
    expect(await journal(res)).toMatchObject({ upstream: { status: 504, logged: false } });
    expect((await logged('hang-1')).map((m) => m.message.role)).toEqual(['user']);

    fake.script({ kind: 'hang' });
    const anthropic = await post(ANTHROPIC, { model: 'claude-sonnet-4-6', max_tokens: 64, messages: [] });
    expect(anthropic.status).toBe(400); // an empty history is refused before any upstream call
    const hung = await post(ANTHROPIC, {
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect([hung.status, await hung.json()]).toEqual([
      504,
      { type: 'error', error: { type: 'timeout_error', message: expect.stringContaining(`${TIMEOUT} ms`) } },
    ]);
  });

  it('keeps serving the same session while one of its calls hangs', async () => {
    fake.script({ kind: 'hang' }, { kind: 'answer', text: 'quick' });
    const hung = post(OPENAI, ask('first'), {
      'x-ctxkit-session': 'hang-2',
      'x-ctxkit-first-byte-timeout-ms': '2000',
    });
    await new Promise((r) => setTimeout(r, 100));
    const [quick, ms] = await timed(() =>
      post(
        OPENAI,
        {
          model: 'gpt-4o',
          messages: [
            { role: 'user', content: 'first' },
            { role: 'user', content: 'second' },
          ],
        },
        { 'x-ctxkit-session': 'hang-2' },
      ),
    );
    expect(quick.status).toBe(200);
    expect(ms).toBeLessThan(1500);
    expect((await hung).status).toBe(504);
  });

  it('takes the timeout from the request header, bounded, and refuses a bad one naming it', async () => {
    fake.script({ kind: 'delay', ms: 600, reply: { kind: 'answer', text: 'late' } });
    const late = await post(OPENAI, ask('x'), { 'x-ctxkit-first-byte-timeout-ms': '2000' });
    expect([late.status, ((await late.json()) as Loose).choices[0].message.content]).toEqual([200, 'late']);
    for (const bad of ['abc', '5', '99999999'])
      expect(await (await post(OPENAI, ask('x'), { 'x-ctxkit-idle-timeout-ms': bad })).json()).toMatchObject({
        error: { code: 'invalid_input', path: 'headers.x-ctxkit-idle-timeout-ms' },
      });
    expect(fake.requests).toHaveLength(1);
  });

  it("ends a stalled stream with the provider's error event, and logs nothing half-written", async () => {
    fake.script({ kind: 'events', events: [chunk('Hel'), chunk('lo')], end: false });
    const [res, ms] = await timed(async () => {
      const r = await post(OPENAI, ask('stall', true), { 'x-ctxkit-session': 'stall-1' });
      return { r, text: await r.text() };
    });
    expect(res.r.status).toBe(200);
    expect(res.text.startsWith(chunk('Hel') + chunk('lo'))).toBe(true);
    const last = res.text.trim().split('\n\n').at(-1)!;
    expect(JSON.parse(last.slice(6))).toMatchObject({ error: { code: 'upstream_stream_error' } });
    expect(ms).toBeLessThan(TIMEOUT + 1500);
    expect(await journal(res.r)).toMatchObject({ upstream: { status: 504, logged: false } });
    expect((await logged('stall-1')).map((m) => m.message.role)).toEqual(['user']);
  });

  it('ends a truncated stream with an error event instead of a silent close', async () => {
    fake.script({ kind: 'events', events: [chunk('Hel'), chunk('lo')] });
    const res = await post(OPENAI, ask('cut', true), { 'x-ctxkit-session': 'cut-1' });
    const text = await res.text();
    expect(text).toContain('the upstream stream ended before its last event');
    expect(await journal(res)).toMatchObject({ upstream: { status: 502, logged: false } });

    fake.script({ kind: 'events', events: ['event: message_start\ndata: {"type":"message_start"}\n\n'] });
    const anthropic = await post(ANTHROPIC, {
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await anthropic.text()).toContain(
      'event: error\ndata: {"type":"error","error":{"type":"api_error"',
    );
  });

  it('relays a whole stream untouched and logs it', async () => {
    fake.script({ kind: 'events', events: [chunk('Hel'), chunk('lo'), DONE] });
    const res = await post(OPENAI, ask('whole', true), { 'x-ctxkit-session': 'whole-1' });
    expect(await res.text()).toBe(chunk('Hel') + chunk('lo') + DONE);
    expect(await journal(res)).toMatchObject({ upstream: { status: 200, logged: true } });
  });

  it('answers a body that is not JSON with a 502 in the provider shape', async () => {
    fake.script({ kind: 'raw', body: '<html>bad gateway</html>' });
    const res = await post(OPENAI, ask('garbage'), { 'x-ctxkit-session': 'garbage-1' });
    expect([res.status, await res.json()]).toEqual([
      502,
      { error: expect.objectContaining({ code: 'upstream_error' }) },
    ]);
  });

  it("passes the provider's 429 and 5xx through with their retry-after", async () => {
    fake.script(
      { kind: 'status', status: 429, message: 'slow down', headers: { 'retry-after': '7' } },
      { kind: 'status', status: 503, message: 'busy', headers: { 'retry-after': '3' } },
    );
    const limited = await post(OPENAI, ask('a'));
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    expect(await limited.json()).toMatchObject({ error: { message: 'slow down' } });
    const busy = await post(OPENAI, ask('b'));
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '3']);
  });
});
