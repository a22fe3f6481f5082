/**
 * Provider calls never follow an HTTP redirect: a 3xx would carry the API key (`Authorization`, and the
 * conversation in the body) to whatever host the `location` names — the proxy does not follow them
 * either (src/worker/proxy/relay.ts). Two local servers: the configured one answers 307 to the second,
 * which records whatever reaches it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CtxError, fromOpenAI } from '../../../src/core/index.ts';
import { createOpenAISummarizer, openAIEmbedder } from '../../../src/providers/index.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

function listen(
  handler: (
    req: IncomingMessage,
    body: string,
  ) => { status: number; headers?: Record<string, string>; body?: string },
) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = handler(req, body);
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  return { server, seen };
}

const KEY = 'sk-secret-never-leaves';
const answer = JSON.stringify({
  id: 'x',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [
    {
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: '{"summary": "s", "memories": []}' },
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1 },
});
// The SDK asks for base64 (little-endian float32) and decodes it.
const embeddings = JSON.stringify({
  object: 'list',
  data: [
    {
      object: 'embedding',
      index: 0,
      embedding: Buffer.from(new Float32Array([0.5]).buffer).toString('base64'),
    },
  ],
  model: 'e',
});

let other: ReturnType<typeof listen>;
let redirecting: ReturnType<typeof listen>;
let otherURL: string;
let baseURL: string;
let status = 307;

function address(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  other = listen((req) => ({ status: 200, body: req.url?.endsWith('/embeddings') ? embeddings : answer }));
  await new Promise<void>((done) => other.server.listen(0, '127.0.0.1', done));
  otherURL = address(other.server);
  redirecting = listen((req) => ({ status, headers: { location: `${otherURL}${req.url}` } }));
  await new Promise<void>((done) => redirecting.server.listen(0, '127.0.0.1', done));
  baseURL = `${address(redirecting.server)}/v1`;
});

afterEach(() => {
  other.seen.length = 0;
  redirecting.seen.length = 0;
  status = 307;
});

afterAll(async () => {
  await Promise.all([other, redirecting].map(({ server }) => new Promise((done) => server.close(done))));
});

const request = {
  purpose: 'compaction' as const,
  preset: 'default' as const,
  messages: fromOpenAI([{ role: 'user', content: 'we chose Postgres' }]),
};

async function rejection(promise: Promise<unknown>): Promise<CtxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CtxError) return error;
    throw error;
  }
  throw new Error('resolved');
}

describe('createOpenAISummarizer', () => {
  it.each([301, 302, 303, 307, 308])(
    'fails with provider_error naming baseURL and sends nothing to the other host when the endpoint answers %i',
    async (code) => {
      status = code;
      const summarizer = createOpenAISummarizer({
        model: 'm',
        apiKey: KEY,
        baseURL,
        maxRetries: 2,
        sleep: async () => {},
      });
      const error = await rejection(summarizer.summarize(request));
      expect(error.code).toBe('provider_error');
      expect(error.message).toContain(`at ${baseURL}`);
      expect(error.message).toContain(`HTTP ${code} redirect to ${otherURL}/v1/chat/completions`);
      expect(error.message).toContain('not followed');
      expect(error.message).toContain('baseURL');
      expect(other.seen).toEqual([]);
      // One attempt: a redirect is not retried.
      expect(redirecting.seen).toHaveLength(1);
      expect(redirecting.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    },
  );

  it('does not follow a redirect through a fetch of your own either', async () => {
    const calls: RequestInit[] = [];
    const summarizer = createOpenAISummarizer({
      model: 'm',
      apiKey: KEY,
      baseURL,
      maxRetries: 0,
      fetch: (input, init) => {
        calls.push(init ?? {});
        return fetch(input, init);
      },
    });
    const error = await rejection(summarizer.summarize(request));
    expect(error.message).toContain('HTTP 307 redirect');
    expect(calls.map((c) => c.redirect)).toEqual(['manual']);
    expect(other.seen).toEqual([]);
  });

  it('summarizes as before when the endpoint answers without a redirect', async () => {
    const summarizer = createOpenAISummarizer({
      model: 'm',
      apiKey: KEY,
      baseURL: `${otherURL}/v1`,
      maxRetries: 0,
    });
    const result = await summarizer.summarize(request);
    expect(result.summary).toBe('s');
    expect(other.seen).toHaveLength(1);
  });
});

describe('openAIEmbedder', () => {
  it('fails with provider_error naming baseURL and sends nothing to the other host on a 307', async () => {
    const error = await rejection(openAIEmbedder({ apiKey: KEY, baseURL }).embed(['secret text']));
    expect(error.code).toBe('provider_error');
    expect(error.message).toContain(`HTTP 307 redirect to ${otherURL}/v1/embeddings`);
    expect(error.message).toContain('baseURL');
    expect(other.seen).toEqual([]);
    expect(redirecting.seen).toHaveLength(1);
  });

  it('embeds as before when the endpoint answers without a redirect', async () => {
    const vectors = await openAIEmbedder({ apiKey: KEY, baseURL: `${otherURL}/v1`, dimensions: 1 }).embed([
      'x',
    ]);
    expect(vectors).toEqual([[0.5]]);
  });
});
