import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let key: string;

beforeAll(async () => {
  w = await startWorker();
  key = await w.createKey('acme');
});
afterAll(async () => {
  await w?.dispose();
});

describe('405 for a known path with another method', () => {
  it('PUT /v1/sessions/x is a 405 JSON error with Allow', async () => {
    const res = await w.request('/v1/sessions/x', { method: 'PUT', key, json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE, GET');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('method_not_allowed');
    expect(body.error.message).toContain('PUT');
  });

  it('lists every method of a path', async () => {
    const res = await w.request('/v1/sessions', { method: 'DELETE', key });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    const prepare = await w.request('/v1/sessions/x/prepare', { method: 'GET', key });
    expect(prepare.status).toBe(405);
    expect(prepare.headers.get('allow')).toBe('POST');
  });

  it('keeps 404 for an unknown path', async () => {
    const res = await w.request('/v1/nothing-here', { method: 'GET', key });
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
  });
});
