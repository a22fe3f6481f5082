/**
 * Proxied calls in flight per session (1 here) and per tenant (2 here), counted by the tenant's
 * Durable Object and given back on every way a call ends; and the stored-bytes cap per tenant
 * (16 KiB here, counted again every second). Leases last 3 s, renewed every second while a call
 * runs; a client that leaves mid-stream ends its call within the relay's 2 s stall watch. Driven against the bundled Worker in Miniflare with the
 * fake provider misbehaving on demand; upstream timeouts are 300 ms.
 */
import { type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tenantLimits } from '../../src/worker/limits/limit-config.ts';
import { type FakeProvider, type ProviderReply, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';

let w: RunningWorker;
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ port: 0 });
  w = await startWorker({
    bindings: {
      UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
      UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
      UPSTREAM_OPENAI_API_KEY: 'sk-env-secret-0123456789abcdef',
      UPSTREAM_ANTHROPIC_API_KEY: 'sk-ant-env-secret-0123456789',
      UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '300',
      UPSTREAM_IDLE_TIMEOUT_MS: '300',
      MAX_IN_FLIGHT_PER_SESSION: '1',
      MAX_IN_FLIGHT_PER_TENANT: '2',
      MAX_STORED_BYTES_PER_TENANT: '16384',
      STORED_BYTES_RECOUNT_SECONDS: '1',
      IN_FLIGHT_LEASE_SECONDS: '3',
    },
  });
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
});

const ask = (content: string, stream = false) => ({
  model: 'gpt-4o',
  stream,
  messages: [{ role: 'user', content }],
});
const chunk = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

function post(
  key: string,
  path: string,
  json: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  const auth = path === ANTHROPIC ? { headers: { 'x-api-key': key, ...headers } } : { key, headers };
  return w.request(path, { method: 'POST', ...auth, json, ...(signal ? { signal } : {}) });
}

async function until(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

async function usage(key: string): Promise<Loose> {
  return (await client(w, key).get('/v1/usage')).body;
}

/** Waits until the provider has received `n` requests (the calls hold their places by then). */
const received = (n: number) => until(async () => fake.requests.length >= n, `${n} upstream requests`);
const allReleased = (key: string) =>
  until(async () => (await usage(key)).inFlight.calls === 0, 'every call released');

describe('withCallLease', () => {
  it("refuses a session's second call in flight with 429, Retry-After and the provider's shape", async () => {
    const key = await w.createKey('one-session');
    fake.script({ kind: 'hang' });
    const first = post(key, OPENAI, ask('slow'), { 'x-ctxkit-session': 's1' });
    await received(1);
    const second = await post(key, OPENAI, ask('again'), { 'x-ctxkit-session': 's1' });
    expect([second.status, second.headers.get('retry-after')]).toEqual([429, '1']);
    expect(await second.json()).toMatchObject({
      error: {
        type: 'requests',
        code: 'rate_limit_exceeded',
        message: expect.stringContaining('MAX_IN_FLIGHT_PER_SESSION'),
      },
    });
    // The refused call wrote nothing upstream: the lease is asked while the body is read, and
    // answered before the call's first write.
    expect(fake.requests).toHaveLength(1);
    // Another session of the tenant is served meanwhile.
    expect((await post(key, OPENAI, ask('other'), { 'x-ctxkit-session': 's2' })).status).toBe(200);
    expect((await first).status).toBe(504);
    await allReleased(key);
    expect((await post(key, OPENAI, ask('now'), { 'x-ctxkit-session': 's1' })).status).toBe(200);
  });

  it('gives the place back when a call ends on its own 400 before it waits for its place', async () => {
    const key = await w.createKey('bad-body');
    const bad = await post(
      key,
      OPENAI,
      { model: 'gpt-4o', messages: 'not a list' },
      { 'x-ctxkit-session': 'b' },
    );
    expect(bad.status).toBe(400);
    await allReleased(key);
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses a tenant's third call in flight while another tenant is served", async () => {
    const key = await w.createKey('busy');
    const calm = await w.createKey('calm');
    fake.script({ kind: 'hang' }, { kind: 'hang' });
    const hanging = [post(key, OPENAI, ask('a'), { 'x-ctxkit-session': 'a' }), post(key, OPENAI, ask('b'))];
    await received(2);
    const third = await post(
      key,
      ANTHROPIC,
      { model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'c' }] },
      { 'x-ctxkit-session': 'c' },
    );
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.stringContaining('MAX_IN_FLIGHT_PER_TENANT') },
    });
    expect((await usage(key)).inFlight).toMatchObject({ calls: 2, sessions: { a: 1 } });
    expect((await post(calm, OPENAI, ask('hi'), { 'x-ctxkit-session': 'a' })).status).toBe(200);
    expect((await Promise.all(hanging)).map((r) => r.status)).toEqual([504, 504]);
    await allReleased(key);
  });

  const ends: Array<[string, ProviderReply, boolean, number]> = [
    ['a whole answer', { kind: 'answer', text: 'done' }, false, 200],
    ['a whole stream', { kind: 'answer', text: 'streamed answer', chunks: 4 }, true, 200],
    ['an upstream 500', { kind: 'status', status: 500, message: 'boom' }, false, 500],
    ['a first-byte timeout', { kind: 'hang' }, false, 504],
    ['a stream that stalls (idle timeout)', { kind: 'events', events: [chunk('a')], end: false }, true, 200],
    ['a stream cut before its end', { kind: 'events', events: [chunk('a'), chunk('b')] }, true, 200],
  ];
  it.each(ends)('gives the place back after %s', async (_, reply, stream, status) => {
    const key = await w.createKey(`ends-${ends.findIndex((e) => e[1] === reply)}`);
    fake.script(reply);
    const res = await post(key, OPENAI, ask('go', stream), { 'x-ctxkit-session': 's' });
    expect(res.status).toBe(status);
    await res.text();
    await allReleased(key);
    fake.script({ kind: 'answer', text: 'next' });
    expect((await post(key, OPENAI, ask('next'), { 'x-ctxkit-session': 's' })).status).toBe(200);
  });

  // The lease here (3 s) is longer than the relay's stall watch (2 s): the place comes back with the
  // call's end, not with the lease (the next describe has a 900 s lease).
  it('forgets the place of a call whose client went away mid-stream within its lease', async () => {
    const key = await w.createKey('leaver');
    // A 10 s stream: the place must come back long before it would have ended.
    const events = Array.from({ length: 200 }, (_, i) => chunk(`t${i} `));
    fake.script({ kind: 'events', events, everyMs: 50 });
    const req = request(new URL(OPENAI, w.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'x-ctxkit-session': 's',
      },
    });
    req.end(JSON.stringify(ask('long', true)));
    const res = await new Promise<IncomingMessage>((resolve) => req.on('response', resolve));
    await new Promise((resolve) => res.once('data', resolve));
    const left = Date.now();
    req.destroy();
    await allReleased(key);
    expect(Date.now() - left).toBeLessThan(3500);
    await until(async () => fake.streams[0]?.closedEarly === true, 'the upstream stream cancelled');
  });

  it('keeps counting a stream that runs longer than its lease, and gives the place back at its end', async () => {
    const key = await w.createKey('long-stream');
    // 4.5 s of stream against a 3 s lease, read by a live client.
    fake.script({
      kind: 'events',
      events: [...Array.from({ length: 90 }, (_, i) => chunk(`${i} `)), 'data: [DONE]\n\n'],
      everyMs: 50,
    });
    const res = await post(key, OPENAI, ask('long', true), { 'x-ctxkit-session': 's' });
    const text = res.text();
    await new Promise((r) => setTimeout(r, 3800));
    expect((await usage(key)).inFlight.sessions).toEqual({ s: 1 });
    expect((await text).trim().endsWith('[DONE]')).toBe(true);
    await allReleased(key);
  });

  it('keeps the place of a call that waits for its first byte longer than its lease', async () => {
    const key = await w.createKey('long-wait');
    fake.script({ kind: 'delay', ms: 4500, reply: { kind: 'answer', text: 'late' } });
    const res = post(key, OPENAI, ask('slow'), {
      'x-ctxkit-session': 's',
      'x-ctxkit-first-byte-timeout-ms': '10000',
    });
    await new Promise((r) => setTimeout(r, 3800));
    expect((await usage(key)).inFlight.calls).toBe(1);
    expect((await res).status).toBe(200);
    await allReleased(key);
  });
});

/** A streamed call whose client reads the first chunk and then closes its socket. */
async function leaveAfterFirstChunk(url: URL, key: string, session: string): Promise<string> {
  const req = request(new URL(OPENAI, url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-ctxkit-session': session,
    },
  });
  req.end(JSON.stringify(ask('long', true)));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  if (res.statusCode !== 200) throw new Error(`a stream answered ${res.statusCode}`);
  await new Promise((resolve) => res.once('data', resolve));
  req.destroy();
  return String(res.headers['x-ctxkit-journal']);
}

describe('a client that leaves mid-stream, with a lease of 900 s', () => {
  let long: RunningWorker;
  beforeAll(async () => {
    long = await startWorker({
      bindings: {
        UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
        UPSTREAM_OPENAI_API_KEY: 'sk-env-secret-0123456789abcdef',
        MAX_IN_FLIGHT_PER_SESSION: '4',
        IN_FLIGHT_LEASE_SECONDS: '900',
      },
    });
  });
  afterAll(async () => {
    await long?.dispose();
  });

  it("gives every place back at the call's end, stops each upstream and journals each call as left", async () => {
    const key = await long.createKey('leavers');
    // 10 s streams: each place must come back long before its stream would have ended.
    const events = Array.from({ length: 200 }, (_, i) => chunk(`t${i} `));
    fake.script(...Array.from({ length: 4 }, () => ({ kind: 'events' as const, events, everyMs: 50 })));
    const journals = await Promise.all(
      Array.from({ length: 4 }, () => leaveAfterFirstChunk(long.url, key, 'busy')),
    );
    const left = Date.now();
    // The session's 4 places were all taken: the next call is served once they come back.
    let status = 0;
    while (Date.now() - left < 5000) {
      fake.script({ kind: 'answer', text: 'served' });
      const res = await long.request(OPENAI, {
        method: 'POST',
        key,
        headers: { 'x-ctxkit-session': 'busy' },
        json: ask('next'),
      });
      await res.text();
      status = res.status;
      if (status === 200) break;
      expect(status).toBe(429);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(Date.now() - left).toBeLessThan(5000);
    await until(
      async () => (await client(long, key).get('/v1/usage')).body.inFlight.calls === 0,
      'all 4 places back',
    );
    await until(
      async () => fake.streams.filter((st) => st.closedEarly).length === 4,
      'the 4 upstream streams cancelled',
    );
    // Far fewer than the 800 events of the 4 streams were written: each provider stopped.
    expect(fake.streams.reduce((n, st) => n + st.written, 0)).toBeLessThan(400);
    // Each call journaled as ended by its client (499); what had streamed is logged, marked partial
    // (the 4 parallel answers of one turn keep one place in the log).
    // Each journal entry is written by a waitUntil of its own: read until it is there.
    for (const link of journals) {
      await until(
        async () => (await client(long, key).get(link)).body.call?.upstream !== undefined,
        'the call journaled',
      );
      expect((await client(long, key).get(link)).body.call.upstream).toMatchObject({ status: 499 });
    }
    const rows = (await client(long, key).get('/v1/sessions/busy/messages')).body.messages as Loose[];
    expect(rows.some((r) => r.message.role === 'assistant' && r.message.meta?.partial)).toBe(true);
  });
});

describe('tenantLimits', () => {
  it('names a variable out of its bounds as a configuration error', () => {
    expect(() => tenantLimits({ MAX_IN_FLIGHT_PER_TENANT: '0' } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_config', path: 'MAX_IN_FLIGHT_PER_TENANT' }),
    );
    expect(() => tenantLimits({ MAX_STORED_BYTES_PER_TENANT: '12k' } as never)).toThrow(/from 1024 to/);
    expect(tenantLimits({ IN_FLIGHT_LEASE_SECONDS: '30' } as never)).toMatchObject({
      leaseMs: 30_000,
      inFlightPerSession: 16,
    });
    // A minute by default, renewed while the call runs: a crashed call's place comes back within it.
    expect(tenantLimits({} as never).leaseMs).toBe(60_000);
  });
});

describe('the stored-bytes quota', () => {
  const big = (i: number) => ({
    format: 'openai',
    messages: [{ role: 'user', content: `${i} ${'x'.repeat(6000)}` }],
  });

  it('refuses a tenant over its stored bytes while another tenant is served, losing nothing stored', async () => {
    const key = await w.createKey('hoarder');
    const hoarder = client(w, key);
    const modest = client(w, await w.createKey('modest'));
    expect((await hoarder.post('/v1/sessions', { id: 'h' })).status).toBe(201);
    let acknowledged = 0;
    let refused: Loose;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await w.request('/v1/sessions/h/messages', { method: 'POST', key, json: big(i) });
      if (res.status === 201) acknowledged++;
      else refused = { status: res.status, retry: res.headers.get('retry-after'), body: await res.json() };
    }
    expect(acknowledged).toBeGreaterThanOrEqual(1);
    expect(refused).toMatchObject({
      status: 429,
      retry: '1',
      body: {
        error: { code: 'storage_quota_exceeded', limit: { name: 'MAX_STORED_BYTES_PER_TENANT', max: 16384 } },
      },
    });
    expect((await hoarder.get('/v1/sessions/h/messages')).body.messages).toHaveLength(acknowledged);
    expect((await modest.post('/v1/sessions', { id: 'm' })).status).toBe(201);
    expect((await modest.post('/v1/sessions/m/messages', big(0))).status).toBe(201);
  });

  it("refuses a proxied call with a session in each provider's shape, and serves one without", async () => {
    const key = await w.createKey('proxy-hoarder');
    const api = client(w, key);
    await api.post('/v1/sessions', { id: 'p' });
    // Filled up to its cap: the next 6 KB turn does not fit.
    let status = 201;
    for (let i = 0; i < 10 && status === 201; i++)
      status = (await api.post('/v1/sessions/p/messages', big(i))).status;
    expect(status).toBe(429);
    const withSession = await post(key, OPENAI, ask(`hi ${'x'.repeat(6000)}`), { 'x-ctxkit-session': 'p' });
    expect(withSession.status).toBe(429);
    expect(await withSession.json()).toMatchObject({
      error: { type: 'insufficient_quota', code: 'insufficient_quota' },
    });
    const anthropic = await post(
      key,
      ANTHROPIC,
      { model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: `hi ${'x'.repeat(6000)}` }] },
      { 'x-ctxkit-session': 'p' },
    );
    expect([anthropic.status, await anthropic.json()]).toEqual([
      429,
      { type: 'error', error: expect.objectContaining({ type: 'rate_limit_error' }) },
    ]);
    expect((await post(key, OPENAI, ask('hi'))).status).toBe(200);
  });

  it('lets writes in again once the tenant deleted enough and the total was counted again', async () => {
    const key = await w.createKey('cleaner');
    const api = client(w, key);
    await api.post('/v1/sessions', { id: 'c' });
    let status = 201;
    for (let i = 0; i < 10 && status === 201; i++)
      status = (await api.post('/v1/sessions/c/messages', big(i))).status;
    expect(status).toBe(429);
    expect((await api.delete('/v1/sessions/c')).status).toBe(204);
    await until(
      async () => (await api.post('/v1/sessions', { id: 'd' })).status === 201,
      'a write let in again',
    );
  });
});

describe('TenantObject', () => {
  it('still counts, after a restart of the runtime, a call the restart cut, until its lease runs out', async () => {
    const first = await startWorker({
      bindings: {
        UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
        UPSTREAM_OPENAI_API_KEY: 'sk-env-secret-0123456789abcdef',
        IN_FLIGHT_LEASE_SECONDS: '8',
        MAX_IN_FLIGHT_PER_SESSION: '1',
      },
    });
    const key = await first.createKey('restarted');
    fake.script({ kind: 'hang' });
    const cut = first
      .request(OPENAI, { method: 'POST', key, headers: { 'x-ctxkit-session': 's' }, json: ask('x') })
      .catch(() => undefined);
    await received(1);
    await first.dispose({ keepState: true });
    await cut;
    const again = await startWorker({
      persistDir: first.persistDir,
      migrate: false,
      bindings: {
        UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
        UPSTREAM_OPENAI_API_KEY: 'sk-env-secret-0123456789abcdef',
        IN_FLIGHT_LEASE_SECONDS: '8',
        MAX_IN_FLIGHT_PER_SESSION: '1',
      },
    });
    try {
      const api = client(again, key);
      const held = await api.get('/v1/usage');
      expect(held.body.inFlight.sessions).toEqual({ s: 1 });
      // The session's one place is still taken; a stateless call of the tenant is served.
      expect((await api.post(OPENAI, ask('y'))).status).toBe(200);
      await until(
        async () => (await api.get('/v1/usage')).body.inFlight.calls === 0,
        'the lease expired',
        12_000,
      );
    } finally {
      await again.dispose();
    }
  });
});
