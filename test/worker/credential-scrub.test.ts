/**
 * An upstream that reflects the credentials it was sent never hands them to the client
 * (src/worker/proxy/credential-scrub.ts): headers and bodies, whole and streamed, OpenAI and
 * Anthropic, the configured key and a request's own `x-upstream-api-key`, and nothing of it in the
 * session log or the call journal. The stream scrubber is also checked alone, secrets split across
 * chunks at every offset.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, scrubStream, scrubText, secretsToScrub } from '../../src/worker/proxy/credential-scrub.ts';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';

const OPENAI_KEY = 'sk-env-openai-secret-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-env-secret-0123456789abcdef';
const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

function pieces(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const bounds = [0, ...cuts, bytes.length];
  return new ReadableStream({
    start(c) {
      for (let i = 0; i + 1 < bounds.length; i++) c.enqueue(bytes.slice(bounds[i], bounds[i + 1]));
      c.close();
    },
  });
}

describe('scrubStream', () => {
  const secret = 'sk-live-abcdef0123456789';
  const secrets = secretsToScrub({ UPSTREAM_OPENAI_API_KEY: secret } as never, new Headers());

  it('replaces a secret split across two chunks at any offset, and nothing else', async () => {
    const text = `data: {"echo":"Bearer ${secret}"}\n\ndata: é ok\n\n`;
    for (let cut = 1; cut < text.length; cut++) {
      const out = await collect(scrubStream(pieces(text, [cut]), secrets));
      expect(out).toBe(`data: {"echo":"Bearer ${REDACTED}"}\n\ndata: é ok\n\n`);
    }
  });

  it('replaces a secret cut into one-byte chunks, and its JSON-escaped and percent-encoded forms', async () => {
    const slashed = 'sk/live+key=0123456789';
    const s = secretsToScrub({ UPSTREAM_ANTHROPIC_API_KEY: slashed } as never, new Headers());
    const text = `a ${slashed} b ${JSON.stringify(slashed).slice(1, -1).replaceAll('/', '\\/')} c ${encodeURIComponent(slashed)} d`;
    const out = await collect(scrubStream(pieces(text, [...text].map((_, i) => i + 1).slice(0, -1)), s));
    expect(out).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d`);
  });

  it('holds back no byte of a chunk that cannot begin a secret', async () => {
    const reader = scrubStream(pieces('data: one\n\ndata: two\n\n', [11]), secrets).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
  });

  it('leaves secrets shorter than 8 characters alone', () => {
    expect(secretsToScrub({ ADMIN_TOKEN: 'short' } as never, new Headers({ 'x-api-key': 'abc' }))).toEqual(
      [],
    );
    expect(scrubText('text with short', [])).toBe('text with short');
  });
});

describe('the proxy and an upstream that echoes credentials', () => {
  let w: RunningWorker;
  let fake: FakeProvider;
  let key: string;

  useProxyWorker(
    'acme',
    () => ({
      UPSTREAM_OPENAI_API_KEY: OPENAI_KEY,
      UPSTREAM_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    }),
    (r) => ({ w, fake, key } = r),
  );

  async function call(path: string, stream: boolean, headers: Record<string, string> = {}) {
    const anthropic = path === ANTHROPIC;
    const res = await w.request(path, {
      method: 'POST',
      ...(anthropic ? { headers: { 'x-api-key': key, ...headers } } : { key, headers }),
      json: {
        model: anthropic ? 'claude-sonnet-4-5' : 'gpt-4o',
        stream,
        ...(anthropic ? { max_tokens: 50 } : {}),
        messages: [{ role: 'user', content: 'echo please' }],
      },
    });
    const head = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    return { status: res.status, head, body: await res.text(), res };
  }

  const leaks = (text: string, ...secrets: string[]) => secrets.filter((s) => text.includes(s));

  it.each([
    ['OpenAI, whole', OPENAI, false, OPENAI_KEY],
    ['OpenAI, streamed', OPENAI, true, OPENAI_KEY],
    ['Anthropic, whole', ANTHROPIC, false, ANTHROPIC_KEY],
    ['Anthropic, streamed', ANTHROPIC, true, ANTHROPIC_KEY],
  ])('relays no configured key in headers or body (%s)', async (_name, path, stream, secret) => {
    fake.script({ kind: 'echo' });
    const got = await call(path, stream, { 'x-ctxkit-session': `echo-${path.length}-${stream}` });
    expect(got.status).toBe(200);
    // The upstream did receive the key, and did echo it.
    expect(JSON.stringify(fake.requests.at(-1)!.headers)).toContain(secret);
    expect(got.head).toContain(`x-echo-${path === ANTHROPIC ? 'api-key' : 'authorization'}`);
    expect(leaks(`${got.head}\n${got.body}`, OPENAI_KEY, ANTHROPIC_KEY)).toEqual([]);
    expect(got.body).toContain(REDACTED);
  });

  it("relays no request's own key, and no key in an echoed error", async () => {
    const own = 'sk-per-request-key-0123456789abcdef';
    fake.script({ kind: 'echo', status: 401 });
    const got = await call(OPENAI, false, { 'x-upstream-api-key': own });
    expect(got.status).toBe(401);
    expect(leaks(`${got.head}\n${got.body}`, own, OPENAI_KEY)).toEqual([]);
  });

  it('logs and journals no echoed key', async () => {
    fake.script({ kind: 'echo' });
    const got = await call(OPENAI, true, { 'x-ctxkit-session': 'logged-echo' });
    const api = client(w, key);
    const log = JSON.stringify((await api.get('/v1/sessions/logged-echo/messages')).body);
    const journal = JSON.stringify((await api.get(got.res.headers.get('x-ctxkit-journal')!)).body);
    expect(log).toContain(REDACTED);
    expect(leaks(`${log}\n${journal}`, OPENAI_KEY)).toEqual([]);
  });
});
