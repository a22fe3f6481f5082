/**
 * A local provider for the proxy's tests: OpenAI Chat Completions (`POST /v1/chat/completions`),
 * OpenAI Responses (`POST /v1/responses`) and Anthropic Messages (`POST /v1/messages`) on 127.0.0.1, whole or streamed (SSE) answers with text
 * and tool calls, the providers' own context-length errors, any other status, and a stream that
 * holds after its first event until the test releases it. Every request is recorded. Replies come
 * from the script in order, then the fallback (an answer "ok").
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The arguments as the provider writes them (default: `JSON.stringify(args)`), e.g. deeply nested JSON. */
  argumentsText?: string;
}

export type ProviderReply =
  | {
      kind: 'answer';
      text?: string;
      toolCalls?: FakeToolCall[];
      /**
       * `cacheRead` / `cacheWrite`: prompt-cache tokens as each provider reports them (OpenAI counts
       * both inside the prompt, `prompt_tokens_details.cached_tokens` and, from GPT-5.6 on,
       * `cache_write_tokens` — `input_tokens_details` in the Responses API; Anthropic beside
       * `input_tokens`, `cache_read_input_tokens` and `cache_creation_input_tokens`).
       */
      usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
      /** Streamed text is cut into this many pieces. @default 3 */
      chunks?: number;
      /** Streaming only: after the first event, wait for this before sending the rest. */
      hold?: Promise<void>;
    }
  /** The provider's own "context too long" error (400, each protocol's wording). */
  | { kind: 'overflow' }
  | { kind: 'status'; status: number; message?: string; headers?: Record<string, string> }
  /** Never answers: the request stays open until the client gives up or the server closes. */
  | { kind: 'hang' }
  /** Answers `reply` after `ms` (a slow first byte). */
  | { kind: 'delay'; ms: number; reply: ProviderReply }
  /**
   * A 200 SSE answer written as given, one event every `everyMs`; `end: false` keeps the stream open
   * after the last one (a stalled stream), `end: 'destroy'` breaks the connection after it, else it
   * ends (truncated when the events lack the last one). `events` may be made on demand (`count`
   * events, `event(i)` each: a huge answer never held whole); `after(i)` pauses before event `i + 1`.
   */
  | {
      kind: 'events';
      events: string[] | { count: number; event(i: number): string };
      everyMs?: number;
      end?: boolean | 'destroy';
      /** Waited for after event `i` was written, before the next one. */
      after?: (i: number) => Promise<void> | undefined;
    }
  /** A 200 answer whose body is `body` as is (e.g. not JSON). */
  | { kind: 'raw'; body: string; contentType?: string }
  /** A 200 answer of `bytes` bytes made on demand in pieces of `piece` (never held whole). */
  | { kind: 'huge'; bytes: number; piece?: string; contentType?: string }
  /**
   * Reflects the credentials it was sent (`authorization`, `x-api-key`), as a misconfigured endpoint or
   * a debugging proxy does: in response headers (`x-echo-authorization`, `x-echo-api-key`) and in its
   * body — an answer whose text holds them (streamed as one piece), or with `status` an error whose
   * message does.
   */
  | { kind: 'echo'; status?: number }
  /**
   * A server whose real window is `limit`: it measures the request (body bytes / 4, its own
   * tokenizer) and answers `text` when it fits, else a 400 in the given server's own wording.
   */
  | { kind: 'window'; limit: number; wording: WindowWording; text?: string };

/** A reply as a protocol serves it (a window server's reply is resolved first). */
type ServedReply = Extract<ProviderReply, { kind: 'answer' | 'overflow' | 'status' }>;

export type WindowWording = 'openai' | 'vllm' | 'openrouter' | 'ollama' | 'llamacpp' | 'anthropic';

/** A window server's 400 body: each server's shape and wording (docs/proxy.md's table). */
export function windowError(wording: WindowWording, limit: number, measured: number, output = 0): unknown {
  const over = `${measured + output}`;
  switch (wording) {
    case 'openai':
      return {
        error: {
          message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${measured} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      };
    case 'vllm':
      return {
        object: 'error',
        message: `This model's maximum context length is ${limit} tokens. However, you requested ${over} tokens (${measured} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      };
    case 'openrouter':
      return {
        error: {
          message: `This endpoint's maximum context length is ${limit} tokens. However, you requested about ${over} tokens (${measured} of text input, ${output} in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.`,
          code: 400,
        },
      };
    case 'ollama':
      return {
        error: {
          message: `prompt too long; exceeded max context length by ${measured - limit} tokens`,
          type: 'api_error',
          param: null,
          code: null,
        },
      };
    case 'llamacpp':
      return {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: measured,
          n_ctx: limit,
        },
      };
    case 'anthropic':
      return {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: `prompt is too long: ${measured} tokens > ${limit} maximum`,
        },
      };
  }
}

export interface ProviderRequest {
  protocol: 'openai' | 'anthropic' | 'responses';
  path: string;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: the body is whatever the proxy sent
  body: any;
  /** Size of the raw body in bytes. */
  bytes: number;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** For `UPSTREAM_OPENAI_BASE_URL`. */
  openaiBase: string;
  /** For `UPSTREAM_ANTHROPIC_BASE_URL`. */
  anthropicBase: string;
  requests: ProviderRequest[];
  /** Every `events` answer: how many events it wrote, and whether the client closed it before the end. */
  streams: Array<{ written: number; closedEarly: boolean }>;
  script(...replies: ProviderReply[]): void;
  /** Replies for the requests that name `model`, taken before the common script (concurrent calls each get theirs). */
  scriptModel(model: string, ...replies: ProviderReply[]): void;
  /** Requests whose answer has not ended yet (the connection still open). */
  open(): number;
  /** Drops the scripted replies not used yet and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_USAGE: { input: number; output: number; cacheRead?: number; cacheWrite?: number } = {
  input: 100,
  output: 10,
};

/** OpenAI's cache counts, inside the prompt: `{ [key]: { cached_tokens, cache_write_tokens } }` with those reported. */
function openAICacheDetails(key: string, usage: { cacheRead?: number; cacheWrite?: number }) {
  if (usage.cacheRead === undefined && usage.cacheWrite === undefined) return {};
  const details: Record<string, number> = {};
  if (usage.cacheRead !== undefined) details.cached_tokens = usage.cacheRead;
  if (usage.cacheWrite !== undefined) details.cache_write_tokens = usage.cacheWrite;
  return { [key]: details };
}

/** Anthropic's input side of a usage: uncached input, and the cache's reads and writes beside it. */
function anthropicInput(usage: { input: number; cacheRead?: number; cacheWrite?: number }) {
  return {
    input_tokens: usage.input,
    ...(usage.cacheRead !== undefined ? { cache_read_input_tokens: usage.cacheRead } : {}),
    ...(usage.cacheWrite !== undefined ? { cache_creation_input_tokens: usage.cacheWrite } : {}),
  };
}

function pieces(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sse(res: ServerResponse, data: unknown, event?: string): void {
  res.write(
    `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
  );
}

async function openai(res: ServerResponse, body: Record<string, unknown>, reply: ServedReply) {
  const model = (body.model as string) ?? 'fake';
  if (reply.kind === 'overflow') {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          message:
            "This model's maximum context length is 16385 tokens. However, your messages resulted in 40000 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
    );
    return;
  }
  if (reply.kind === 'status') {
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'x-request-id': 'req-fake',
      ...reply.headers,
    });
    res.end(
      JSON.stringify({
        error: { message: reply.message ?? `fake ${reply.status}`, type: 'fake', code: null },
      }),
    );
    return;
  }
  const usage = reply.usage ?? DEFAULT_USAGE;
  const prompt = usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
  const u = {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    ...openAICacheDetails('prompt_tokens_details', usage),
  };
  const calls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.argumentsText ?? JSON.stringify(c.args) },
  }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-fake' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 1_700_000_000,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? null,
              refusal: null,
              annotations: [],
              ...(calls.length > 0 ? { tool_calls: calls } : {}),
            },
            finish_reason: finish,
            logprobs: null,
          },
        ],
        usage: u,
      }),
    );
    return;
  }
  const chunk = (delta: Record<string, unknown>, fr: string | null = null) => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: fr }],
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-fake' });
  sse(res, chunk({ role: 'assistant', content: '' }));
  if (reply.hold) await reply.hold;
  for (const p of pieces(reply.text ?? '', reply.chunks ?? 3)) sse(res, chunk({ content: p }));
  calls.forEach((c, index) => {
    sse(
      res,
      chunk({
        tool_calls: [
          { index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } },
        ],
      }),
    );
    for (const p of pieces(c.function.arguments, 2))
      sse(res, chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  sse(res, chunk({}, finish));
  const opts = body.stream_options as { include_usage?: boolean } | undefined;
  if (opts?.include_usage) sse(res, { ...chunk({}), choices: [], usage: u });
  sse(res, '[DONE]');
  res.end();
}

async function anthropic(res: ServerResponse, body: Record<string, unknown>, reply: ServedReply) {
  const model = (body.model as string) ?? 'fake';
  if (reply.kind === 'overflow') {
    res.writeHead(400, { 'content-type': 'application/json', 'request-id': 'req-fake' });
    res.end(
      JSON.stringify({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
      }),
    );
    return;
  }
  if (reply.kind === 'status') {
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'request-id': 'req-fake',
      ...reply.headers,
    });
    res.end(
      JSON.stringify({
        type: 'error',
        error: { type: 'api_error', message: reply.message ?? `fake ${reply.status}` },
      }),
    );
    return;
  }
  const usage = reply.usage ?? DEFAULT_USAGE;
  const content: Array<Record<string, unknown>> = [];
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  for (const c of reply.toolCalls ?? [])
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
  const stop = (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req-fake' });
    res.end(
      JSON.stringify({
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { ...anthropicInput(usage), output_tokens: usage.output },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req-fake' });
  sse(
    res,
    {
      type: 'message_start',
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicInput(usage), output_tokens: 1 },
      },
    },
    'message_start',
  );
  if (reply.hold) await reply.hold;
  content.forEach((b, index) => {
    if (b.type === 'text') {
      sse(
        res,
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        'content_block_start',
      );
      for (const p of pieces(b.text as string, reply.chunks ?? 3))
        sse(
          res,
          { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } },
          'content_block_delta',
        );
    } else {
      sse(
        res,
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
        },
        'content_block_start',
      );
      for (const p of pieces(JSON.stringify(b.input), 2))
        sse(
          res,
          { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } },
          'content_block_delta',
        );
    }
    sse(res, { type: 'content_block_stop', index }, 'content_block_stop');
  });
  sse(
    res,
    {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output },
    },
    'message_delta',
  );
  sse(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

async function responses(res: ServerResponse, body: Record<string, unknown>, reply: ServedReply) {
  const model = (body.model as string) ?? 'fake';
  if (reply.kind === 'overflow') {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          message:
            'Your input exceeds the context window of this model. Please adjust your input and try again.',
          type: 'invalid_request_error',
          param: 'input',
          code: 'context_length_exceeded',
        },
      }),
    );
    return;
  }
  if (reply.kind === 'status') {
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'x-request-id': 'req-fake',
      ...reply.headers,
    });
    res.end(
      JSON.stringify({
        error: { message: reply.message ?? `fake ${reply.status}`, type: 'fake', code: null },
      }),
    );
    return;
  }
  const usage = reply.usage ?? DEFAULT_USAGE;
  const output: Array<Record<string, unknown>> = [];
  if (reply.text !== undefined)
    output.push({
      type: 'message',
      id: 'msg_fake',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  for (const [i, c] of (reply.toolCalls ?? []).entries())
    output.push({
      type: 'function_call',
      id: `fc_fake_${i}`,
      call_id: c.id,
      name: c.name,
      arguments: c.argumentsText ?? JSON.stringify(c.args),
      status: 'completed',
    });
  const response = {
    id: 'resp_fake',
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model,
    output,
    usage: {
      input_tokens: usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
      output_tokens: usage.output,
      total_tokens: usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) + usage.output,
      ...openAICacheDetails('input_tokens_details', usage),
    },
  };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-fake' });
    res.end(JSON.stringify(response));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-fake' });
  let n = 0;
  const ev = (type: string, data: Record<string, unknown>) =>
    sse(res, { type, sequence_number: n++, ...data }, type);
  ev('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  if (reply.hold) await reply.hold;
  output.forEach((item, output_index) => {
    ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress' } });
    if (item.type === 'message')
      for (const delta of pieces(reply.text ?? '', reply.chunks ?? 3))
        ev('response.output_text.delta', { output_index, content_index: 0, item_id: item.id, delta });
    ev('response.output_item.done', { output_index, item });
  });
  ev('response.completed', { response });
  res.end();
}

export async function startFakeProvider(
  options: { port?: number; script?: ProviderReply[] } = {},
): Promise<FakeProvider> {
  const queue: ProviderReply[] = [...(options.script ?? [])];
  const byModel = new Map<string, ProviderReply[]>();
  let open = 0;
  const requests: ProviderRequest[] = [];
  const streams: FakeProvider['streams'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {}
      const path = req.url ?? '';
      const protocol = path.endsWith('/chat/completions')
        ? 'openai'
        : path.endsWith('/v1/messages')
          ? 'anthropic'
          : path.endsWith('/v1/responses')
            ? 'responses'
            : undefined;
      if (!protocol) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"no such route"}}');
        return;
      }
      requests.push({ protocol, path, headers: req.headers, body, bytes: raw.length });
      open++;
      res.on('close', () => open--);
      const serve = (next: ProviderReply): void => {
        switch (next.kind) {
          case 'hang':
            return;
          case 'delay':
            setTimeout(() => serve(next.reply), next.ms);
            return;
          case 'raw':
            res.writeHead(200, { 'content-type': next.contentType ?? 'application/json' });
            res.end(next.body);
            return;
          case 'echo': {
            const auth = String(req.headers.authorization ?? '');
            const apiKey = String(req.headers['x-api-key'] ?? '');
            res.setHeader('x-echo-authorization', auth);
            res.setHeader('x-echo-api-key', apiKey);
            const text = `you sent authorization: ${auth} and x-api-key: ${apiKey}`;
            serve(
              next.status !== undefined && next.status !== 200
                ? { kind: 'status', status: next.status, message: text }
                : { kind: 'answer', text, chunks: 1 },
            );
            return;
          }
          case 'events': {
            const stream = { written: 0, closedEarly: false };
            streams.push(stream);
            const list = next.events;
            const count = Array.isArray(list) ? list.length : list.count;
            const eventAt = (i: number) => (Array.isArray(list) ? list[i]! : list.event(i));
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.on('close', () => {
              if (stream.written < count || next.end === false) stream.closedEarly = true;
            });
            const write = async () => {
              if (res.destroyed) return;
              if (stream.written >= count) {
                if (next.end === 'destroy') res.destroy();
                else if (next.end !== false) res.end();
                return;
              }
              const i = stream.written++;
              // Backpressure: a reader that stops reading stops the provider too (as a real one's socket does).
              if (!res.write(eventAt(i))) await new Promise((r) => res.once('drain', r));
              await next.after?.(i);
              setTimeout(() => void write(), next.everyMs ?? 0);
            };
            void write();
            return;
          }
          case 'huge': {
            res.writeHead(200, { 'content-type': next.contentType ?? 'application/json' });
            const piece = next.piece ?? 'x'.repeat(65_536);
            let sent = 0;
            const write = () => {
              while (sent < next.bytes && !res.destroyed) {
                const p = piece.slice(0, Math.min(piece.length, next.bytes - sent));
                sent += p.length;
                if (!res.write(p)) return void res.once('drain', write);
              }
              if (!res.destroyed) res.end();
            };
            write();
            return;
          }
          case 'window': {
            const measured = Math.ceil(raw.length / 4);
            if (measured > next.limit) {
              res.writeHead(400, { 'content-type': 'application/json' });
              res.end(JSON.stringify(windowError(next.wording, next.limit, measured)));
              return;
            }
            serve({ kind: 'answer', text: next.text ?? 'ok' });
            return;
          }
          default:
            void (protocol === 'openai'
              ? openai(res, body, next)
              : protocol === 'responses'
                ? responses(res, body, next)
                : anthropic(res, body, next));
        }
      };
      const mine = typeof body.model === 'string' ? byModel.get(body.model) : undefined;
      serve(mine?.shift() ?? queue.shift() ?? { kind: 'answer', text: 'ok' });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    openaiBase: `${origin}/v1`,
    anthropicBase: origin,
    requests,
    streams,
    script: (...replies) => {
      queue.push(...replies);
    },
    scriptModel: (model, ...replies) => {
      byModel.set(model, [...(byModel.get(model) ?? []), ...replies]);
    },
    open: () => open,
    reset: () => {
      queue.length = 0;
      byModel.clear();
      requests.length = 0;
      streams.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
