/**
 * An upstream that answers with a redirect (3xx): the proxy follows none. Upstreams come only from
 * configuration, and a followed redirect sent the client's conversation, and with Anthropic the
 * service's provider key (`x-api-key`, which fetch keeps across origins), to wherever it pointed.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { ENV_OPENAI_KEY, useProxyWorker } from './support/proxy-worker.ts';
import { until } from './support/until.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';
const ANTHROPIC_KEY = 'sk-ant-env-secret-fedcba9876543210';

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'redirects',
  () => ({ UPSTREAM_ANTHROPIC_API_KEY: ANTHROPIC_KEY }),
  (r) => ({ w, fake, key } = r),
);

/** The fake provider under another origin (`localhost` for `127.0.0.1`): where a redirect sends it. */
const elsewhere = (path: string) => `${fake.origin.replace('127.0.0.1', 'localhost')}${path}`;

describe('fetchUpstream', () => {
  it("answers an upstream redirect with a 502 in the provider's shape and sends nothing to its target", async () => {
    fake.script({ kind: 'status', status: 307, headers: { location: elsewhere('/v1/messages') } });
    const res = await w.request(ANTHROPIC, {
      method: 'POST',
      headers: { 'x-api-key': key, 'x-ctxkit-session': 'redir-1' },
      json: {
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'secret plan' }],
      },
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('location')).toBeNull();
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(body.error.message).toMatch(/redirect \(307\).*UPSTREAM_ANTHROPIC_BASE_URL/);
    expect(body.error.message).not.toContain('localhost');
    // One request, to the configured origin; the provider key went nowhere else.
    expect(fake.requests.map((r) => r.headers.host)).toEqual([new URL(fake.origin).host]);
    expect(fake.requests[0]!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    const link = res.headers.get('x-ctxkit-journal')!;
    const { call } = (
      await until(
        () => client(w, key).get(link),
        (r) => r.body.call?.upstream !== undefined,
      )
    ).body;
    expect(call.upstream).toMatchObject({ status: 502, logged: false });
  });

  it('follows no redirect of a stateless streamed call either (302, 308)', async () => {
    for (const status of [302, 308]) {
      fake.reset();
      fake.script({ kind: 'status', status, headers: { location: elsewhere('/v1/chat/completions') } });
      const res = await w.request(OPENAI, {
        method: 'POST',
        key,
        json: { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'upstream_error' } });
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${ENV_OPENAI_KEY}`);
    }
  });
});
