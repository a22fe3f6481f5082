/**
 * Sessions per tenant (src/worker/limits/session-quota.ts): nothing bounded how many sessions — each
 * a D1 row and a Durable Object — one key could open. Past `MAX_SESSIONS_PER_TENANT` a new one is a
 * 429 naming it, on the session routes and on a proxied call with a new session (before the upstream
 * is called); the sessions the tenant holds work as before, another tenant is not counted, and a
 * deletion frees its place at once. The count from D1 runs once an hour here, so what holds the cap
 * is the tenant object's own count.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';

const CAP = 3;
const ADMIN_TOKEN = 'admin-token-for-the-session-quota-tests-0123';
const OPENAI = '/v1/proxy/openai/chat/completions';

let w: RunningWorker;
let fake: FakeProvider;

useProxyWorker(
  'sq-setup',
  () => ({ ADMIN_TOKEN, MAX_SESSIONS_PER_TENANT: String(CAP), STORED_BYTES_RECOUNT_SECONDS: '3600' }),
  (running) => {
    ({ w, fake } = running);
  },
);

const proxied = (key: string, session: string) =>
  w.request(OPENAI, {
    method: 'POST',
    key,
    headers: { 'x-ctxkit-session': session },
    json: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
  });

describe('withSessionPlace', () => {
  it('refuses a session past MAX_SESSIONS_PER_TENANT with a 429 naming it, and keeps the others working', async () => {
    const key = await w.createKey('sq-a');
    const api = client(w, key);
    for (let i = 0; i < CAP; i++) expect((await api.post('/v1/sessions', { id: `s${i}` })).status).toBe(201);
    // Twelve at once: none gets a place past the cap.
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => api.post('/v1/sessions', { id: `burst${i}` })),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(12).fill(429));
    expect(burst[0]!.body).toMatchObject({
      error: {
        code: 'session_quota_exceeded',
        limit: { name: 'MAX_SESSIONS_PER_TENANT', max: CAP, used: CAP },
      },
    });
    expect(burst[0]!.body.error.message).toMatch(/MAX_SESSIONS_PER_TENANT 3/);
    // A proxied call that would open a new session: 429 in OpenAI's shape, the upstream never called.
    const res = await proxied(key, 'new-by-proxy');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3600');
    expect(await res.json()).toMatchObject({ error: { code: 'insufficient_quota' } });
    expect(fake.requests).toHaveLength(0);
    // The sessions it holds: appends and proxied calls as before.
    const append = await api.post('/v1/sessions/s0/messages', {
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'still here' }] }],
    });
    expect(append.status).toBe(201);
    expect((await proxied(key, 's1')).status).toBe(200);
    expect((await api.get('/v1/sessions')).body.sessions).toHaveLength(CAP);
    expect((await api.get('/v1/usage')).body.sessions).toEqual({
      count: CAP,
      max: CAP,
      name: 'MAX_SESSIONS_PER_TENANT',
    });
  });

  it('frees the place of a deleted session at once and counts no other tenant', async () => {
    const key = await w.createKey('sq-b');
    const api = client(w, key);
    for (let i = 0; i < CAP; i++) expect((await api.post('/v1/sessions', { id: `s${i}` })).status).toBe(201);
    const other = client(w, await w.createKey('sq-c'));
    expect((await other.post('/v1/sessions', { id: 's0' })).status).toBe(201);
    expect((await api.post('/v1/sessions', { id: 'late' })).status).toBe(429);
    expect((await api.delete('/v1/sessions/s2')).status).toBe(204);
    expect((await api.post('/v1/sessions', { id: 'late' })).status).toBe(201);
    expect((await api.post('/v1/sessions', { id: 'later' })).status).toBe(429);
    // A create refused for another reason (the id exists) takes no place.
    expect((await api.post('/v1/sessions', { id: 'late' })).status).toBe(409);
    expect((await api.delete('/v1/sessions/late')).status).toBe(204);
    expect((await api.post('/v1/sessions', { id: 'again' })).status).toBe(201);
  });

  it("holds a tenant to the operator's sessions cap for it, and back to the environment's on null", async () => {
    const key = await w.createKey('sq-d');
    const api = client(w, key);
    const put = (json: unknown) =>
      w.request('/v1/admin/tenants/sq-d/limits', {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        json,
      });
    const set = await put({ sessions: 1 });
    expect([set.status, ((await set.json()) as { caps: unknown }).caps]).toEqual([200, { sessions: 1 }]);
    expect((await api.post('/v1/sessions', { id: 'one' })).status).toBe(201);
    const refused = await api.post('/v1/sessions', { id: 'two' });
    expect([refused.status, refused.body.error.limit]).toEqual([
      429,
      { name: 'MAX_SESSIONS_PER_TENANT', max: 1, used: 1 },
    ]);
    expect((await api.get('/v1/usage')).body.sessions).toMatchObject({ count: 1, max: 1 });
    expect((await put({ sessions: null })).status).toBe(200);
    expect((await api.post('/v1/sessions', { id: 'two' })).status).toBe(201);
    expect((await put({})).status).toBe(400);
  });
});
