/**
 * What an API key may do (src/worker/auth/scopes.ts, key-store.ts): scopes per route, expiry, the
 * line of keys a key administers (never the key that minted it), cascading revocation, the tenant's
 * append-only audit log, the operator's key routes; and throttling of failed authentication per
 * address and per key id (auth-throttle.ts), which never locks out a key verified within the minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

const ADMIN_TOKEN = 'operator-token-for-key-tests-0123456789';

let w: RunningWorker;
let root: string;
let rootApi: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker({
    bindings: { ADMIN_TOKEN, AUTH_FAILURES_PER_ADDRESS: '20', AUTH_FAILURES_PER_KEY: '5' },
  });
  const res = await w.request('/v1/admin/tenants/acme/keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    json: { label: 'root' },
  });
  root = ((await res.json()) as Loose).key;
  rootApi = client(w, root);
});
afterAll(async () => {
  await w?.dispose();
});

const idOf = (key: string) => key.split('_')[1]!;

async function mint(by: ReturnType<typeof client>, body: Record<string, unknown> = {}) {
  const res = await by.post('/v1/keys', body);
  expect(res.status).toBe(201);
  return { key: res.body.key as string, id: res.body.id as string, api: client(w, res.body.key) };
}

describe('key scopes', () => {
  it('lets a read-only key read and refuses its writes, proxy calls and key management with 403', async () => {
    await rootApi.post('/v1/sessions', { id: 'shared' });
    const reader = await mint(rootApi, { scopes: ['read'] });
    expect((await reader.api.get('/v1/sessions/shared')).status).toBe(200);
    expect((await reader.api.post('/v1/memories/search', { query: 'x' })).status).toBe(200);
    for (const res of [
      await reader.api.post('/v1/sessions', { id: 'nope' }),
      await reader.api.post('/v1/proxy/openai/chat/completions', { model: 'm', messages: [] }),
      await reader.api.post('/v1/keys', {}),
      await reader.api.get('/v1/audit'),
    ])
      expect([res.status, res.body.error.code]).toEqual([403, 'insufficient_scope']);
  });

  it('mints keys with at most its own scopes and expiry', async () => {
    const writer = await mint(rootApi, { scopes: ['read', 'write', 'admin'], expiresDays: 2 });
    const escalate = await writer.api.post('/v1/keys', { scopes: ['proxy'] });
    expect([escalate.status, escalate.body.error.path]).toEqual([403, 'scopes']);
    const longer = await writer.api.post('/v1/keys', { expiresDays: 30 });
    expect([longer.status, longer.body.error.path]).toEqual([403, 'expiresDays']);
    const child = await writer.api.post('/v1/keys', {});
    expect([child.body.scopes, child.body.expiresAt]).toEqual([
      ['read', 'write', 'admin'],
      expect.any(Number),
    ]);
  });

  it('refuses an expired key with 401, also one this isolate verified shortly before it expired', async () => {
    const soon = await mint(rootApi, { expiresDays: 2 / 86_400 });
    // Verified now, remembered by the auth cache only until it expires (2 s, not the cache's 60 s).
    expect((await soon.api.get('/v1/sessions')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    const res = await soon.api.get('/v1/sessions');
    expect([res.status, res.body.error.message]).toEqual([401, 'this API key has expired']);
  });
});

describe('the line of keys a key administers', () => {
  it('revokes its own children, never the key that minted it, and the operator revokes any', async () => {
    const parent = await mint(rootApi, { label: 'parent' });
    const child = await mint(parent.api, { label: 'child' });
    const up = await child.api.delete(`/v1/keys/${parent.id}`);
    expect([up.status, up.body.error.code]).toEqual([403, 'insufficient_scope']);
    expect((await parent.api.get('/v1/sessions')).status).toBe(200);
    const sibling = await mint(rootApi, { label: 'sibling' });
    expect((await child.api.delete(`/v1/keys/${sibling.id}`)).status).toBe(403);
    expect((await parent.api.delete(`/v1/keys/${child.id}`)).status).toBe(204);
    expect((await child.api.get('/v1/sessions')).status).toBe(401);
    const byOperator = await w.request(`/v1/admin/tenants/acme/keys/${sibling.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(byOperator.status).toBe(204);
    expect((await sibling.api.get('/v1/sessions')).status).toBe(401);
  });

  it('lists only its own line, and revoking a key revokes every key minted through it', async () => {
    const a = await mint(rootApi, { label: 'a' });
    const b = await mint(a.api, { label: 'b' });
    const c = await mint(b.api, { label: 'c' });
    expect((await a.api.get('/v1/keys')).body.keys.map((k: Loose) => k.label).sort()).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect((await b.api.get('/v1/keys')).body.keys.map((k: Loose) => k.label).sort()).toEqual(['b', 'c']);
    expect((await rootApi.delete(`/v1/keys/${a.id}`)).status).toBe(204);
    for (const k of [a, b, c]) expect((await k.api.get('/v1/sessions')).status).toBe(401);
  });
});

describe('the audit log', () => {
  it("records who issued and revoked which key, readable by the tenant's admin keys only", async () => {
    const made = await mint(rootApi, { label: 'audited', scopes: ['read'] });
    expect((await rootApi.delete(`/v1/keys/${made.id}`)).status).toBe(204);
    const entries = (await rootApi.get('/v1/audit')).body.entries as Loose[];
    expect(entries.filter((e) => e.target === made.id).map((e) => [e.actor, e.action])).toEqual([
      [`key:${idOf(root)}`, 'key.create'],
      [`key:${idOf(root)}`, 'key.revoke'],
    ]);
    expect(entries.find((e) => e.action === 'key.create' && e.target === made.id).detail).toEqual({
      scopes: 'read',
      expiresAt: null,
      label: 'audited',
    });
    expect(entries[0]).toMatchObject({ actor: 'operator', action: 'key.create', target: idOf(root) });
    expect(JSON.stringify(entries)).not.toMatch(/ctx_|[0-9a-f]{64}/);
  });

  it('refuses to change or delete an entry', async () => {
    const db = await w.db();
    await expect(db.prepare("UPDATE audit_log SET actor = 'someone'").run()).rejects.toThrow(/append-only/);
    await expect(db.prepare('DELETE FROM audit_log').run()).rejects.toThrow(/append-only/);
  });
});

describe('failed authentication', () => {
  const bad = () => `ctx_${Math.random().toString(36).slice(2, 14).padEnd(12, '0')}_${'x'.repeat(40)}`;
  const from = (address: string, key: string) =>
    w.request('/v1/sessions', { headers: { authorization: `Bearer ${key}`, 'cf-connecting-ip': address } });

  it('throttles an address after 20 failures a minute, while a key it verified keeps working', async () => {
    expect((await from('198.51.100.7', root)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await from('198.51.100.7', bad())).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
    const throttled = await from('198.51.100.7', bad());
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await throttled.json()) as Loose).error.limit.name).toBe('AUTH_FAILURES_PER_ADDRESS');
    expect((await from('198.51.100.7', root)).status).toBe(200);
    expect((await from('198.51.100.8', bad())).status).toBe(401);
  });

  it('throttles one key id after 5 wrong secrets a minute, from any address', async () => {
    const id = 'abcdefabcdef';
    for (let i = 0; i < 5; i++)
      expect((await from(`203.0.113.${i}`, `ctx_${id}_${'y'.repeat(40)}${i}`)).status).toBe(401);
    const res = await from('203.0.113.99', `ctx_${id}_${'z'.repeat(40)}`);
    expect([res.status, ((await res.json()) as Loose).error.limit.name]).toEqual([
      429,
      'AUTH_FAILURES_PER_KEY',
    ]);
  });

  it('counts wrong operator tokens too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++)
      statuses.push(
        (
          await w.request('/v1/admin/tenants/acme/audit', {
            headers: { authorization: 'Bearer wrong-token', 'cf-connecting-ip': '192.0.2.44' },
          })
        ).status,
      );
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
  });
});
