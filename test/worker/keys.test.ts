import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/worker/auth/api-keys.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let seed: string;
let acme: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker();
  seed = await w.createKey('acme');
  acme = client(w, seed);
});
afterAll(async () => {
  await w?.dispose();
});

const idOf = (key: string) => key.split('_')[1]!;
const errorOf = (body: Loose) => [body.error.code, body.error.path];

describe('POST /v1/keys', () => {
  it('returns a working key once and stores only its SHA-256 when a tenant key asks', async () => {
    const res = await acme.post('/v1/keys', { label: 'ci runner' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'createdAt',
      'createdBy',
      'expiresAt',
      'id',
      'key',
      'label',
      'scopes',
    ]);
    // Minted by the seed key: its scopes and (no) expiry.
    expect([res.body.scopes, res.body.expiresAt, res.body.createdBy]).toEqual([
      ['read', 'write', 'proxy', 'admin'],
      null,
      idOf(seed),
    ]);
    expect([res.body.label, res.body.id]).toEqual(['ci runner', idOf(res.body.key)]);
    const row = await (await w.db())
      .prepare('SELECT tenant, hash, label FROM api_keys WHERE id = ?')
      .bind(res.body.id)
      .first<{ tenant: string; hash: string; label: string }>();
    expect(row).toEqual({ tenant: 'acme', hash: await sha256Hex(res.body.key), label: 'ci runner' });
    const fresh = client(w, res.body.key);
    expect((await fresh.post('/v1/sessions', { id: 'made-with-new-key' })).status).toBe(201);
    expect((await acme.get('/v1/sessions/made-with-new-key')).status).toBe(200);
  });

  it('creates an unlabelled key when there is no body', async () => {
    const res = await acme.post('/v1/keys');
    expect([res.status, res.body.label]).toEqual([201, null]);
  });

  it.each([
    ['a label over 100 characters', { label: 'x'.repeat(101) }, 'label'],
    ['an empty label', { label: '' }, 'label'],
    ['a label that is not a string', { label: 42 }, 'label'],
  ])('answers 400 naming the field when the body has %s', async (_name, json, path) => {
    const res = await acme.post('/v1/keys', json);
    expect([res.status, ...errorOf(res.body)]).toEqual([400, 'invalid_input', path]);
  });

  it('answers 400 naming an unknown field in the message', async () => {
    const res = await acme.post('/v1/keys', { label: 'ok', scope: 'all' });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_input']);
    expect(res.body.error.message).toContain('scope');
  });

  it('answers 400 naming the body when it is not JSON', async () => {
    const res = await w.request('/v1/keys', {
      method: 'POST',
      key: seed,
      headers: { 'content-type': 'application/json' },
      body: '{"label": oops',
    });
    const body = (await res.json()) as Loose;
    expect([res.status, ...errorOf(body)]).toEqual([400, 'invalid_input', 'body']);
  });

  it('answers 401 without a key', async () => {
    expect((await w.request('/v1/keys', { method: 'POST' })).status).toBe(401);
  });
});

describe('GET /v1/keys', () => {
  it("lists the tenant's keys without hashes, marking the key of the request", async () => {
    const made = await acme.post('/v1/keys', { label: 'listed' });
    const res = await acme.get('/v1/keys');
    expect(res.status).toBe(200);
    const keys = res.body.keys as Array<Record<string, unknown>>;
    const byId = new Map(keys.map((k) => [k.id, k]));
    expect(byId.get(made.body.id)).toEqual({
      id: made.body.id,
      label: 'listed',
      createdAt: made.body.createdAt,
      revokedAt: null,
      scopes: ['read', 'write', 'proxy', 'admin'],
      expiresAt: null,
      createdBy: idOf(seed),
      current: false,
    });
    expect(keys.filter((k) => k.current).map((k) => k.id)).toEqual([idOf(seed)]);
    expect(JSON.stringify(res.body)).not.toMatch(/hash|[0-9a-f]{64}|ctx_/);
  });

  it("leaves out another tenant's keys", async () => {
    const other = client(w, await w.createKey('globex'));
    const ids = (await other.get('/v1/keys')).body.keys.map((k: { id: string }) => k.id);
    expect(ids).not.toContain(idOf(seed));
    expect(ids).toHaveLength(1);
  });
});

describe('DELETE /v1/keys/:id', () => {
  it('revokes a key so that it gets 401 at once in the same isolate', async () => {
    const made = await acme.post('/v1/keys', { label: 'to revoke' });
    const doomed = client(w, made.body.key);
    // Authenticated once: the key now sits in this isolate's auth cache.
    expect((await doomed.get('/v1/sessions')).status).toBe(200);
    expect((await acme.delete(`/v1/keys/${made.body.id}`)).status).toBe(204);
    const after = await doomed.get('/v1/sessions');
    expect([after.status, ...errorOf(after.body)]).toEqual([401, 'unauthorized', 'headers.authorization']);
    const listed = (await acme.get('/v1/keys')).body.keys.find((k: { id: string }) => k.id === made.body.id);
    expect(typeof listed.revokedAt).toBe('number');
    expect((await acme.get('/v1/sessions')).status).toBe(200);
  });

  it('answers 204 again and keeps the first revokedAt when the key is revoked twice', async () => {
    const made = await acme.post('/v1/keys');
    expect((await acme.delete(`/v1/keys/${made.body.id}`)).status).toBe(204);
    const first = (await acme.get('/v1/keys')).body.keys.find((k: { id: string }) => k.id === made.body.id);
    expect((await acme.delete(`/v1/keys/${made.body.id}`)).status).toBe(204);
    const second = (await acme.get('/v1/keys')).body.keys.find((k: { id: string }) => k.id === made.body.id);
    expect(second.revokedAt).toBe(first.revokedAt);
  });

  it("answers 404 and leaves the key working when it is another tenant's", async () => {
    const globexKey = await w.createKey('globex');
    const res = await acme.delete(`/v1/keys/${idOf(globexKey)}`);
    expect([res.status, ...errorOf(res.body)]).toEqual([404, 'not_found', 'params.id']);
    expect((await client(w, globexKey).get('/v1/sessions')).status).toBe(200);
  });

  it('answers 404 for an unknown key id and 400 for a malformed one', async () => {
    expect((await acme.delete('/v1/keys/000000000000')).status).toBe(404);
    const bad = await acme.delete('/v1/keys/NOT-AN-ID');
    expect([bad.status, ...errorOf(bad.body)]).toEqual([400, 'invalid_input', 'params.id']);
  });

  it('answers 409 and keeps the key when it revokes itself without ?self=true', async () => {
    const own = client(w, (await acme.post('/v1/keys')).body.key);
    const id = (await own.get('/v1/keys')).body.keys.find((k: { current: boolean }) => k.current).id;
    const res = await own.delete(`/v1/keys/${id}`);
    expect([res.status, ...errorOf(res.body)]).toEqual([409, 'conflict', 'params.id']);
    expect(res.body.error.message).toContain('?self=true');
    expect((await own.get('/v1/sessions')).status).toBe(200);
  });

  it('revokes the key of the request when ?self=true', async () => {
    const own = client(w, (await acme.post('/v1/keys')).body.key);
    const id = (await own.get('/v1/keys')).body.keys.find((k: { current: boolean }) => k.current).id;
    expect((await own.delete(`/v1/keys/${id}?self=true`)).status).toBe(204);
    expect((await own.get('/v1/keys')).status).toBe(401);
  });
});
