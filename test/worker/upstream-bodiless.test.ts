/**
 * An upstream that answers a proxied call with a success that carries no body (204, 205) or an empty
 * one: a chat completion without a body is not an answer. The client gets a 502 in the provider's own
 * shape naming the upstream's status, streamed or not, on every protocol; before, a 204 was relayed
 * bodiless and the client's SDK failed parsing nothing, and the call was journaled as a success.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'bodiless',
  () => ({}),
  (r) => ({ w, fake, key } = r),
);

const CALLS = {
  chat: {
    path: '/v1/proxy/openai/chat/completions',
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
    auth: (k: string) => ({ authorization: `Bearer ${k}` }),
  },
  responses: {
    path: '/v1/proxy/openai/responses',
    body: { model: 'gpt-4o', input: [{ role: 'user', content: 'hi' }] },
    auth: (k: string) => ({ authorization: `Bearer ${k}` }),
  },
  anthropic: {
    path: '/v1/proxy/anthropic/v1/messages',
    body: { model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    auth: (k: string) => ({ 'x-api-key': k }),
  },
} as const;

async function call(protocol: keyof typeof CALLS, stream: boolean, session?: string) {
  const c = CALLS[protocol];
  return w.request(c.path, {
    method: 'POST',
    headers: { ...c.auth(key), ...(session ? { 'x-ctxkit-session': session } : {}) },
    json: { ...c.body, stream },
  });
}

describe('forward', () => {
  for (const protocol of ['chat', 'responses', 'anthropic'] as const)
    for (const stream of [false, true])
      it(`answers an upstream 204 with a 502 naming it (${protocol}, ${stream ? 'streamed' : 'whole'})`, async () => {
        fake.script({ kind: 'status', status: 204 });
        const res = await call(protocol, stream);
        expect(res.status).toBe(502);
        expect(res.headers.get('content-type')).toContain('application/json');
        const body = (await res.json()) as { error: { message: string } };
        expect(body.error.message).toMatch(/upstream answered 204 with no body/);
        if (protocol === 'anthropic')
          expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
        else expect(body).toMatchObject({ error: { type: 'server_error', code: 'upstream_error' } });
        expect(fake.requests).toHaveLength(1);
      });

  it('answers a 205 with a 502 and journals the call 502 with nothing logged', async () => {
    fake.script({ kind: 'status', status: 205 });
    const res = await call('chat', false, 'bodiless-1');
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/205/);
    const link = res.headers.get('x-ctxkit-journal')!;
    const { call: record } = (
      await until(
        () => client(w, key).get(link),
        (r) => r.body.call?.upstream !== undefined,
      )
    ).body;
    expect(record.upstream).toMatchObject({ status: 502, logged: false });
    // The turn itself is kept: the next call brings it again and gets its answer.
    const next = await call('chat', false, 'bodiless-1');
    expect(next.status).toBe(200);
  });

  it('answers an empty 200 with a 502 (whole and streamed)', async () => {
    fake.script({ kind: 'raw', body: '' });
    const whole = await call('chat', false);
    expect(whole.status).toBe(502);
    fake.script({ kind: 'raw', body: '', contentType: 'text/event-stream' });
    const streamed = await call('anthropic', true);
    const text = await streamed.text();
    // A stream's status is sent before its end is known: the provider's error event ends it.
    if (streamed.status === 200) expect(text).toMatch(/event: error/);
    else expect(streamed.status).toBe(502);
  });
});
