/**
 * Per-key and per-tenant request limits on the rate limiting binding (Miniflare's own, as under
 * `npm start`), set low here: 5 requests a minute per key, 8 per tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider();
  w = await startWorker({
    bindings: {
      UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
      UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
    },
    ratelimits: {
      KEY_LIMITER: { simple: { limit: 5, period: 60 } },
      TENANT_LIMITER: { simple: { limit: 8, period: 60 } },
    },
  });
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});

describe('rate limits', () => {
  it("refuses a key over its limit with 429 and Retry-After while another tenant's key is served", async () => {
    const greedy = await w.createKey('greedy');
    const a = client(w, greedy);
    const other = client(w, await w.createKey('calm'));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await a.get('/v1/sessions')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await w.request('/v1/sessions', { key: greedy });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect((await other.get('/v1/sessions')).status).toBe(200);
  });

  it("answers in the provider's shape on the proxy routes", async () => {
    const key = await w.createKey('proxy-greedy');
    const call = (path: string, headers: Record<string, string>) =>
      w.request(path, {
        method: 'POST',
        headers,
        json: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      });
    for (let i = 0; i < 5; i++) await w.request('/v1/sessions', { key });
    const openai = await call('/v1/proxy/openai/chat/completions', { authorization: `Bearer ${key}` });
    expect([openai.status, await openai.json()]).toEqual([
      429,
      { error: expect.objectContaining({ type: 'requests', code: 'rate_limit_exceeded' }) },
    ]);
    const anthropic = await call('/v1/proxy/anthropic/v1/messages', { 'x-api-key': key });
    expect([anthropic.status, await anthropic.json()]).toEqual([
      429,
      { type: 'error', error: expect.objectContaining({ type: 'rate_limit_error' }) },
    ]);
  });

  it("counts a tenant's keys together", async () => {
    const first = await w.createKey('shared');
    const second = await w.createKey('shared');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await w.request('/v1/sessions', { key: first })).status);
    for (let i = 0; i < 4; i++) statuses.push((await w.request('/v1/sessions', { key: second })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const body = (await (await w.request('/v1/sessions', { key: second })).json()) as {
      error: { message: string };
    };
    expect(body.error.message).toContain('tenant');
  });

  it('counts each extra round of the proxy’s tool loop, and answers the 429 in the provider’s shape', async () => {
    const key = await w.createKey('tool-rounds');
    // Three of the key's five requests a minute spent; the call is the fourth, its rounds the next ones.
    for (let i = 0; i < 3; i++) await w.request('/v1/sessions', { key });
    const loop = { kind: 'answer' as const, toolCalls: [{ id: 'l', name: 'recall', args: { query: 'x' } }] };
    fake.reset();
    fake.script(loop, loop, loop, loop, loop);
    const res = await w.request('/v1/proxy/openai/chat/completions', {
      method: 'POST',
      key,
      headers: { 'x-ctxkit-session': 'rounds', 'x-ctxkit-tools': 'on' },
      json: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect([res.status, await res.json()]).toEqual([
      429,
      { error: expect.objectContaining({ type: 'requests', code: 'rate_limit_exceeded' }) },
    ]);
    // The first answer and one extra round went upstream; the round past the limit did not.
    expect(fake.requests).toHaveLength(2);
  });
});
