/**
 * Stored bytes per tenant, reserved in the tenant's Durable Object before anything is stored
 * (src/worker/limits/storage-quota.ts): a body without `Content-Length` counts by what it stores, a
 * body refused as invalid counts nothing, the retry of an acknowledged keyed append gets its stored
 * answer over the cap, proxied turns stop at the cap, and an operator sets one tenant's cap. The
 * total is counted again from D1 and R2 only once an hour here, so what holds the cap is the
 * reservation, not the recount; the operator's recount gives the stored bytes each test checks.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

const ADMIN_TOKEN = 'admin-token-for-the-quota-tests-0123456789';
const CAP = 65_536;
const OPENAI = '/v1/proxy/openai/chat/completions';

let w: RunningWorker;
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ port: 0 });
  w = await startWorker({
    bindings: {
      ADMIN_TOKEN,
      UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
      UPSTREAM_OPENAI_API_KEY: 'sk-env-secret-0123456789abcdef',
      MAX_STORED_BYTES_PER_TENANT: String(CAP),
      STORED_BYTES_RECOUNT_SECONDS: '3600',
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

/** What the tenant stores, counted from D1 and R2 now (the operator's recount). */
async function stored(tenant: string): Promise<number> {
  const res = await w.request(`/v1/admin/tenants/${tenant}/recount`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return ((await res.json()) as Loose).stored.bytes;
}

const turn = (i: number, size: number) => ({
  format: 'openai',
  messages: [{ role: 'user', content: `${i} ${'x'.repeat(size)}` }],
});

/** A POST whose body is streamed in pieces, without `Content-Length` (chunked). */
function chunked(key: string, path: string, json: unknown): Promise<Response> {
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
      controller.close();
    },
  });
  return fetch(new URL(path, w.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
}

describe('the stored-bytes quota', () => {
  it('stops chunked appends within 5% of the cap, counting each body by what it stores', async () => {
    const key = await w.createKey('chunky');
    expect((await client(w, key).post('/v1/sessions', { id: 'c' })).status).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(429); i++)
      statuses.push((await chunked(key, '/v1/sessions/c/messages', turn(i, 4000))).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 201)).toBe(true);
    const bytes = await stored('chunky');
    expect(bytes).toBeLessThanOrEqual(CAP * 1.05);
    expect(bytes).toBeGreaterThan(CAP * 0.8);
  });

  it('counts nothing for bodies it refuses as invalid', async () => {
    const key = await w.createKey('invalid');
    const api = client(w, key);
    await api.post('/v1/sessions', { id: 'v' });
    const before = await stored('invalid');
    for (let i = 0; i < 10; i++) {
      const bad = { format: 'openai', messages: [{ role: 'nobody', content: 'y'.repeat(20_000) }] };
      expect((await chunked(key, '/v1/sessions/v/messages', bad)).status).toBe(400);
    }
    // Well under the cap still: ten 20 KB refusals counted would have passed it.
    expect((await api.post('/v1/sessions/v/messages', turn(0, 30_000))).status).toBe(201);
    expect((await stored('invalid')) - before).toBeLessThan(70_000);
  });

  it('answers the retry of an acknowledged keyed append with its stored answer when the tenant is over its cap', async () => {
    const key = await w.createKey('retrier');
    const api = client(w, key);
    await api.post('/v1/sessions', { id: 'r' });
    const keyed = (i: number) =>
      w.request('/v1/sessions/r/messages', {
        method: 'POST',
        key,
        headers: { 'idempotency-key': 'append-1' },
        json: turn(i, 100),
      });
    const first = await keyed(0);
    expect(first.status).toBe(201);
    const answer = await first.json();
    let status = 201;
    for (let i = 1; i < 40 && status === 201; i++)
      status = (await api.post('/v1/sessions/r/messages', turn(i, 4000))).status;
    expect(status).toBe(429);
    const retry = await keyed(0);
    expect([retry.status, retry.headers.get('idempotent-replayed'), await retry.json()]).toEqual([
      201,
      'true',
      answer,
    ]);
  });

  it('stops proxied turns of a growing history within 5% of the cap, in the provider shape', async () => {
    const key = await w.createKey('proxied');
    const history: Array<{ role: string; content: string }> = [];
    let res: Response | undefined;
    for (let i = 0; i < 40; i++) {
      history.push({ role: 'user', content: `${i} ${'p'.repeat(3000)}` });
      res = await w.request(OPENAI, {
        method: 'POST',
        key,
        headers: { 'x-ctxkit-session': 'grow' },
        json: { model: 'gpt-4o', messages: history },
      });
      if (res.status !== 200) break;
      history.push({ role: 'assistant', content: 'ok' });
      await res.text();
    }
    expect(res?.status).toBe(429);
    expect(await res?.json()).toMatchObject({ error: { code: 'insufficient_quota' } });
    const bytes = await stored('proxied');
    expect(bytes).toBeLessThanOrEqual(CAP * 1.05);
    expect(bytes).toBeGreaterThan(CAP * 0.7);
  });

  it("holds a tenant to the operator's cap for it while another tenant keeps the environment's", async () => {
    const small = await w.createKey('small');
    const other = await w.createKey('roomy');
    const set = await w.request('/v1/admin/tenants/small/limits', {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      json: { storedBytes: 8192 },
    });
    expect([set.status, ((await set.json()) as Loose).caps]).toEqual([200, { storedBytes: 8192 }]);
    await client(w, small).post('/v1/sessions', { id: 's' });
    await client(w, other).post('/v1/sessions', { id: 's' });
    const refused = await client(w, small).post('/v1/sessions/s/messages', turn(0, 9000));
    expect([refused.status, refused.body.error.limit]).toEqual([
      429,
      { name: 'MAX_STORED_BYTES_PER_TENANT', max: 8192, used: expect.any(Number) },
    ]);
    expect((await client(w, other).post('/v1/sessions/s/messages', turn(0, 9000))).status).toBe(201);
    const audit = await w.request('/v1/admin/tenants/small/audit', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(((await audit.json()) as Loose).entries).toMatchObject([
      { actor: 'operator', action: 'tenant.limits', detail: { storedBytes: 8192 } },
    ]);
  });
});
