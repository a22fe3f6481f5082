/**
 * A local Chat Completions server for tests: 127.0.0.1, random port, non-streamed JSON and streamed
 * SSE answers, and a fault script (HTTP errors with headers, a hang, invalid JSON, empty content).
 * Every request is recorded. Replies are taken from the script in order; when it runs out, the
 * `fallback` reply (default: a normal answer "ok") is used.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export type FakeReply =
  /** A normal answer; streamed as SSE when the request asks for `stream: true`. */
  | {
      kind: 'answer';
      content: string;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
      model?: string;
      chunks?: number;
    }
  /** An HTTP error with a JSON error body and optional headers (e.g. `retry-after`). */
  | { kind: 'status'; status: number; headers?: Record<string, string>; message?: string }
  /** Headers never come; the connection stays open until the client gives up or the server closes. */
  | { kind: 'hang' }
  /** Headers and a first chunk come, then the stream stalls. */
  | { kind: 'stall-stream'; first: string }
  /** A 200 whose body is not valid JSON. */
  | { kind: 'invalid-json'; body?: string }
  /** A 200 with `content: null` (or `""` when `text` is set) and no tool calls. */
  | { kind: 'empty'; text?: boolean }
  /** A 200 without `choices`. */
  | { kind: 'no-choices' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: the request body is whatever the client sent
  body: any;
}

export interface FakeOpenAIServer {
  baseURL: string;
  requests: RecordedRequest[];
  /** Appends replies to the script. */
  script(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

const DEFAULT_USAGE = { prompt_tokens: 11, completion_tokens: 7 };

function completionBody(reply: Extract<FakeReply, { kind: 'answer' }>, model: string) {
  const body: Record<string, unknown> = {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: reply.model ?? model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
  };
  const usage = reply.usage === undefined ? DEFAULT_USAGE : reply.usage;
  if (usage) body.usage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
  return body;
}

function sse(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function split(text: string, n: number): string[] {
  const runes = Array.from(text);
  const size = Math.max(1, Math.ceil(runes.length / n));
  const out: string[] = [];
  for (let i = 0; i < runes.length; i += size) out.push(runes.slice(i, i + size).join(''));
  return out;
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

export async function startFakeOpenAIServer(
  options: { script?: FakeReply[]; fallback?: FakeReply } = {},
): Promise<FakeOpenAIServer> {
  const queue: FakeReply[] = [...(options.script ?? [])];
  const fallback: FakeReply = options.fallback ?? { kind: 'answer', content: 'ok' };
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      raw += d;
    });
    req.on('end', () => {
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = raw;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const reply = queue.shift() ?? fallback;
      const b = (body ?? {}) as {
        model?: string;
        stream?: boolean;
        stream_options?: { include_usage?: boolean };
      };
      const model = b.model ?? 'fake-model';
      switch (reply.kind) {
        case 'hang':
          return;
        case 'status':
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(
            JSON.stringify({
              error: {
                message: reply.message ?? `fake status ${reply.status}`,
                type: 'fake_error',
                code: null,
              },
            }),
          );
          return;
        case 'invalid-json':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(reply.body ?? '{"id": "chatcmpl-fake", "choices": [');
          return;
        case 'no-choices':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion', model }));
          return;
        case 'stall-stream':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          sse(res, chunk(model, { role: 'assistant', content: reply.first }));
          return;
        case 'empty':
          if (b.stream) {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            sse(res, chunk(model, { role: 'assistant', content: reply.text ? '' : null }, 'stop'));
            sse(res, '[DONE]');
            res.end();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify(completionBody({ kind: 'answer', content: '' }, model)).replace(
              '"content":""',
              reply.text ? '"content":""' : '"content":null',
            ),
          );
          return;
        case 'answer': {
          if (!b.stream) {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(completionBody(reply, model)));
            return;
          }
          const m = reply.model ?? model;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          sse(res, chunk(m, { role: 'assistant', content: '' }));
          for (const piece of split(reply.content, reply.chunks ?? 3)) sse(res, chunk(m, { content: piece }));
          sse(res, chunk(m, {}, 'stop'));
          const usage = reply.usage === undefined ? DEFAULT_USAGE : reply.usage;
          if (usage && b.stream_options?.include_usage)
            sse(res, {
              id: 'chatcmpl-fake',
              object: 'chat.completion.chunk',
              created: 1_700_000_000,
              model: m,
              choices: [],
              usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
            });
          sse(res, '[DONE]');
          res.end();
          return;
        }
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => {
      queue.push(...replies);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * One server for the whole test file, started before its tests and closed after them, its request log
 * emptied before each test: `const server = useFakeOpenAIServer();` at the top of the file.
 */
export function useFakeOpenAIServer(): FakeOpenAIServer {
  let running: FakeOpenAIServer | undefined;
  const started = () => {
    if (!running) throw new Error('the fake OpenAI server starts in beforeAll');
    return running;
  };
  beforeAll(async () => {
    running = await startFakeOpenAIServer();
  });
  afterAll(() => running?.close());
  beforeEach(() => {
    if (running) running.requests.length = 0;
  });
  return {
    get baseURL() {
      return started().baseURL;
    },
    get requests() {
      return started().requests;
    },
    script: (...replies) => started().script(...replies),
    close: () => started().close(),
  };
}
