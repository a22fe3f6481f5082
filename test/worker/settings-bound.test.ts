/**
 * A session's settings are one value of its Durable Object, which production holds to 2 MiB (local
 * runs do not): with `MAX_BODY_BYTES` raised, a create's preset config could pass it and the create
 * fail there, after the checks. Past `MAX_SETTINGS_CHARS` it is a 413 naming `settings`, nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SETTINGS_CHARS } from '../../src/worker/session/settings.ts';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker({ bindings: { MAX_BODY_BYTES: String(8 * 1024 * 1024) } });
});
afterAll(async () => {
  await w?.dispose();
});

describe('boundedSettings', () => {
  it('refuses settings past MAX_SETTINGS_CHARS with a 413 naming them, and creates nothing', async () => {
    const api = client(w, await w.createKey('settings'));
    // 100 excluded tool names of 30,000 characters: valid settings of 3 MB.
    const big = {
      id: 'big',
      excludeTools: Array.from({ length: 100 }, (_, i) => `${i}${'x'.repeat(30_000)}`),
    };
    const res = await api.post('/v1/sessions', big);
    expect([res.status, res.body.error?.code, res.body.error?.path]).toEqual([
      413,
      'payload_too_large',
      'settings',
    ]);
    expect(res.body.error.message).toContain(String(MAX_SETTINGS_CHARS));
    expect((await api.get('/v1/sessions/big')).status).toBe(404);
    expect((await api.post('/v1/sessions', { id: 'small', config: {} })).status).toBe(201);
  });
});
