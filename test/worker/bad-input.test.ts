import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, neutralUser } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let key: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker({ bindings: { MAX_BODY_BYTES: '4096' } });
  key = await w.createKey('acme');
  api = client(w, key);
  await api.post('/v1/sessions', { id: 's' });
});
afterAll(async () => {
  await w?.dispose();
});

async function errorOf(res: Response) {
  expect(res.headers.get('content-type')).toContain('application/json');
  const body = (await res.json()) as { error: { code: string; message: string; path: string | null } };
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'path']);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+/);
  return { status: res.status, ...body.error };
}

describe('authentication', () => {
  it('answers health without a key', async () => {
    const res = await w.request('/health');
    expect(await res.json()).toEqual({ ok: true, service: 'ctxkit' });
  });

  it.each([
    ['no header', undefined],
    ['not bearer', 'Basic abc'],
    ['malformed key', 'Bearer nope'],
    ['unknown key', 'Bearer ctx_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('answers 401 when the token is bad (%s)', async (_name, header) => {
    const res = await w.request('/v1/sessions', header ? { headers: { authorization: header } } : {});
    const e = await errorOf(res);
    expect([e.status, e.code, e.path]).toEqual([401, 'unauthorized', 'headers.authorization']);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('answers 401 when the key has a known id but a wrong secret', async () => {
    const forged = `${key.slice(0, key.lastIndexOf('_') + 1)}${'B'.repeat(43)}`;
    const e = await errorOf(await w.request('/v1/sessions', { key: forged }));
    expect(e.status).toBe(401);
  });
});

describe('bad requests', () => {
  const append = (json: unknown) => w.request('/v1/sessions/s/messages', { method: 'POST', key, json });

  it('names the path when a message has no role', async () => {
    const e = await errorOf(await append({ messages: [{ id: 'x', parts: [] }] }));
    expect([e.status, e.code, e.path]).toEqual([400, 'invalid_input', 'messages[0].role']);
    expect(e.message).toBe('role is required');
  });

  it('names the path when tool arguments are not JSON', async () => {
    const e = await errorOf(
      await append({
        format: 'openai',
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }],
          },
        ],
      }),
    );
    expect([e.status, e.code, e.path]).toEqual([
      400,
      'invalid_input',
      'messages[0].tool_calls[0].function.arguments',
    ]);
  });

  it('names the path when a part type is unknown', async () => {
    const e = await errorOf(
      await append({ messages: [{ id: 'x', role: 'user', parts: [{ type: 'video', url: 'x' }] }] }),
    );
    expect([e.status, e.path]).toEqual([400, 'messages[0].parts[0].type']);
    expect(e.message).toContain('unknown part type');
  });

  it('rejects unknown fields', async () => {
    const e = await errorOf(await append({ messages: [neutralUser('a', 'hi')], extra: true }));
    expect([e.status, e.code]).toEqual([400, 'invalid_input']);
    expect(e.message).toContain('extra');
  });

  it('answers 415 when the content type is not JSON', async () => {
    const res = await w.request('/v1/sessions/s/messages', {
      method: 'POST',
      key,
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ messages: [neutralUser('a', 'hi')] }),
    });
    const e = await errorOf(res);
    expect([e.status, e.code, e.path]).toEqual([415, 'unsupported', 'headers.content-type']);
  });

  it('answers 400 when the body is not JSON', async () => {
    const res = await w.request('/v1/sessions/s/messages', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    const e = await errorOf(res);
    expect([e.status, e.path]).toEqual([400, 'body']);
  });

  it('answers 413 when the declared length is over the limit', async () => {
    const e = await errorOf(await append({ messages: [neutralUser('big', 'x'.repeat(5000))] }));
    expect([e.status, e.code]).toEqual([413, 'payload_too_large']);
  });

  /** An append whose body is `body`, streamed without a length. */
  const streamed = (body: ReadableStream<Uint8Array>) =>
    w.request('/v1/sessions/s/messages', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);

  it('answers 413 when a streamed body without length grows over the limit', async () => {
    // 50 times the limit: the client is still sending when the limit is crossed, and gets the 413
    // all the same (the rest is read and discarded), not a connection closed under its feet.
    const chunk = new TextEncoder().encode(
      JSON.stringify({ messages: [neutralUser('big', 'y'.repeat(200_000))] }),
    );
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < chunk.length; i += 1000) controller.enqueue(chunk.slice(i, i + 1000));
        controller.close();
      },
    });
    const e = await errorOf(await streamed(body));
    expect([e.status, e.code]).toEqual([413, 'payload_too_large']);
  });

  it('answers 413 soon, not at the read timeout, when a body over the limit then stalls', async () => {
    const start = Date.now();
    let stop!: () => void;
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"messages":[${'"z",'.repeat(2000)}`));
        stop = () => controller.close();
      },
    });
    const e = await errorOf(await streamed(body));
    stop();
    expect([e.status, e.code]).toEqual([413, 'payload_too_large']);
    expect(Date.now() - start).toBeLessThan(10_000);
  });

  it('answers 400 naming the parameter when a session id is malformed', async () => {
    const e = await errorOf(await w.request('/v1/sessions/bad%20id/stats', { key }));
    expect([e.status, e.path]).toEqual([400, 'params.session']);
  });

  it('answers 400, not 500, for a broken percent-encoding in the path', async () => {
    const e = await errorOf(await w.request('/v1/sessions/%E0%A4%A/stats', { key }));
    expect([e.status, e.path]).toEqual([400, 'params.session']);
  });

  it('answers 404 for a blob id that does not decode', async () => {
    const e = await errorOf(await w.request('/v1/blobs/%E0%A4%A', { key }));
    expect(e.status).toBe(404);
  });

  it('answers 400 naming the query parameter when it is not a number', async () => {
    const e = await errorOf(await w.request('/v1/sessions?limit=lots', { key }));
    expect([e.status, e.path]).toEqual([400, 'query.limit']);
  });

  it('answers a JSON 404 for an unknown route', async () => {
    const e = await errorOf(await w.request('/v1/nothing-here', { key }));
    expect([e.status, e.code]).toEqual([404, 'not_found']);
  });

  it('answers 400 when the output dialect is unknown', async () => {
    const e = await errorOf(
      await w.request('/v1/sessions/s/prepare', { method: 'POST', key, json: { dialect: 'cohere' } }),
    );
    expect([e.status, e.path]).toEqual([400, 'dialect']);
  });

  it('answers 400 when overflow recovery has no error text', async () => {
    const e = await errorOf(await w.request('/v1/sessions/s/overflow', { method: 'POST', key, json: {} }));
    expect([e.status, e.path]).toEqual([400, 'error']);
  });
});
