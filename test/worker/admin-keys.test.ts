import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const route = '/v1/admin/tenants/initech/keys';

let withToken: RunningWorker;
let withoutToken: RunningWorker;

beforeAll(async () => {
  [withToken, withoutToken] = await Promise.all([startWorker({ bindings: { ADMIN_TOKEN } }), startWorker()]);
});
afterAll(async () => {
  await Promise.all([withToken?.dispose(), withoutToken?.dispose()]);
});

async function post(w: RunningWorker, path: string, token?: string, json?: unknown) {
  const res = await w.request(path, {
    method: 'POST',
    ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {}),
    ...(json !== undefined ? { json } : {}),
  });
  return { status: res.status, body: (await res.json()) as Loose };
}

describe('POST /v1/admin/tenants/:tenant/keys', () => {
  it('answers 404 whatever the credentials when ADMIN_TOKEN is not configured', async () => {
    const tenantKey = await withoutToken.createKey('acme');
    const statuses = [
      (await post(withoutToken, route)).status,
      (await post(withoutToken, route, ADMIN_TOKEN)).status,
      (await post(withoutToken, route, tenantKey)).status,
    ];
    expect(statuses).toEqual([404, 404, 404]);
  });

  it('answers 401 when the token is wrong or missing', async () => {
    const wrong = await post(withToken, route, `${ADMIN_TOKEN}x`);
    expect([wrong.status, wrong.body.error.code, wrong.body.error.path]).toEqual([
      401,
      'unauthorized',
      'headers.authorization',
    ]);
    expect((await post(withToken, route)).status).toBe(401);
  });

  it("answers 401 when a tenant's API key is used instead of the admin token", async () => {
    const tenantKey = await withToken.createKey('acme');
    expect((await post(withToken, route, tenantKey)).status).toBe(401);
  });

  it('creates a key that works for that tenant only when the token is right', async () => {
    const res = await post(withToken, route, ADMIN_TOKEN, { label: 'bootstrap' });
    expect(res.status).toBe(201);
    expect([res.body.tenant, res.body.label, res.body.key.split('_')[1]]).toEqual([
      'initech',
      'bootstrap',
      res.body.id,
    ]);
    const initech = client(withToken, res.body.key);
    expect((await initech.post('/v1/sessions', { id: 'tps-reports' })).status).toBe(201);
    const listed = (await initech.get('/v1/keys')).body.keys;
    expect(listed.map((k: { id: string; current: boolean }) => [k.id, k.current])).toEqual([
      [res.body.id, true],
    ]);
    const acme = client(withToken, await withToken.createKey('acme'));
    expect((await acme.get('/v1/sessions/tps-reports')).status).toBe(404);
  });

  it.each([
    ['uppercase', 'Initech'],
    ['a leading dash', '-initech'],
    ['64 characters', 'a'.repeat(64)],
  ])('answers 400 naming the tenant when it has %s', async (_name, tenant) => {
    const res = await post(withToken, `/v1/admin/tenants/${tenant}/keys`, ADMIN_TOKEN);
    expect([res.status, res.body.error.code, res.body.error.path]).toEqual([
      400,
      'invalid_input',
      'params.tenant',
    ]);
  });

  it('answers 400 naming the label when it is too long', async () => {
    const res = await post(withToken, route, ADMIN_TOKEN, { label: 'x'.repeat(101) });
    expect([res.status, res.body.error.path]).toEqual([400, 'label']);
  });
});
