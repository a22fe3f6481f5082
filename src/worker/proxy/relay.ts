/**
 * The upstream leg of a proxied call, bounded in time and tied to the client: the fetch is aborted
 * when no answer begins within the first-byte timeout (the client gets a 504 in the provider's own
 * error shape) or when the client goes away; a body is read with an idle timeout between chunks; a
 * stream that stalls, breaks or ends before its last event ends the client's stream with the
 * provider's own error event, never a silent close. A client that disconnects mid-stream cancels the
 * upstream (the provider stops generating) unless the call asked to keep reading for the log.
 *
 * How the relay learns that the client went away, by what the runtime reports: `request.signal`
 * aborts, or the runtime cancels the stream it reads (`cancel()`); and when it reports neither —
 * workerd (under `npm start`) may stop reading a stream whose client left without firing either, and
 * then drops the call's work once nothing is pending, so nothing of the call would run again — the
 * relay sees it itself: a stream whose reader has not come back for `stallMs` after a chunk was
 * handed to it is a client that is gone. A live reader takes each chunk at once (the socket's buffers
 * hold far more than an answer), so only a reader that stopped leaves the chunk waiting.
 */
import type { Message } from '../../core/index.ts';
import type { AnswerAccumulator, Protocol } from './protocol.ts';
import { createSseReader, type SseEvent } from './sse.ts';
import type { UpstreamTimeouts } from './timeouts.ts';

type Dialect = Protocol['dialect'];

/** Why a call to the upstream ended without its whole answer. */
export class UpstreamFault extends Error {
  constructor(
    readonly kind: 'timeout' | 'client-gone',
    message: string,
  ) {
    super(message);
  }
}

/** The provider's own error body, for an answer the proxy gives in its place. */
export function faultBody(dialect: Dialect, status: number, message: string): unknown {
  const timeout = status === 504;
  if (dialect === 'anthropic')
    return { type: 'error', error: { type: timeout ? 'timeout_error' : 'api_error', message } };
  return {
    error: {
      message,
      type: timeout ? 'timeout' : 'server_error',
      param: null,
      code: timeout ? 'upstream_timeout' : 'upstream_error',
    },
  };
}

export function faultResponse(
  dialect: Dialect,
  status: number,
  message: string,
  headers?: Headers,
): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json');
  return new Response(JSON.stringify(faultBody(dialect, status, message)), { status, headers: h });
}

/** The provider's own stream error event (the SDKs raise it as an API error). */
export function faultEvent(dialect: Dialect, message: string): string {
  if (dialect === 'anthropic')
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`;
  if (dialect === 'responses')
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'upstream_stream_error', message, param: null })}\n\n`;
  return `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: 'upstream_stream_error' } })}\n\n`;
}

const RESPONSES_END = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

/** The event a complete stream ends with (or the provider's own error event). */
export function isLastEvent(dialect: Dialect, e: SseEvent): boolean {
  if (dialect === 'openai') return e.data.trim() === '[DONE]';
  if (e.event !== undefined)
    return dialect === 'anthropic'
      ? e.event === 'message_stop' || e.event === 'error'
      : RESPONSES_END.has(e.event);
  try {
    const type = (JSON.parse(e.data) as { type?: unknown }).type;
    return dialect === 'anthropic'
      ? type === 'message_stop' || type === 'error'
      : RESPONSES_END.has(String(type));
  } catch {
    return false;
  }
}

const IDLE = Symbol('idle');

/** `promise`, or `IDLE` when it takes longer than `ms`. */
async function withinIdle<T>(promise: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<typeof IDLE>((resolve) => {
    timer = setTimeout(() => resolve(IDLE), ms);
  });
  try {
    return await Promise.race([promise, idle]);
  } finally {
    clearTimeout(timer);
  }
}

/** The upstream's answer, aborted at the first-byte timeout or when `client` aborts. */
export async function fetchUpstream(
  url: string,
  init: RequestInit,
  timeouts: UpstreamTimeouts,
  client: AbortSignal | undefined,
): Promise<{ res: Response; abort: AbortController }> {
  const abort = new AbortController();
  const gone = () => abort.abort(new UpstreamFault('client-gone', 'the client went away'));
  if (client?.aborted) gone();
  client?.addEventListener('abort', gone, { once: true });
  const timer = setTimeout(
    () =>
      abort.abort(
        new UpstreamFault(
          'timeout',
          `the upstream did not begin its answer within ${timeouts.firstByteMs} ms`,
        ),
      ),
    timeouts.firstByteMs,
  );
  try {
    const res = await fetch(url, { ...init, signal: abort.signal });
    return { res, abort };
  } catch (error) {
    const reason = abort.signal.reason;
    throw reason instanceof UpstreamFault ? reason : error;
  } finally {
    clearTimeout(timer);
  }
}

/** A whole (non-streamed) body, with the idle timeout between its chunks. */
export async function readBody(res: Response, idleMs: number, abort: AbortController): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const r = await withinIdle(reader.read(), idleMs);
    if (r === IDLE) {
      abort.abort();
      await reader.cancel().catch(() => undefined);
      throw new UpstreamFault('timeout', `the upstream sent nothing for ${idleMs} ms`);
    }
    if (r.done) return text + decoder.decode();
    text += decoder.decode(r.value, { stream: true });
  }
}

/** How a relayed stream ended. */
export type StreamEnd =
  | { outcome: 'complete'; answer: Message | undefined }
  /** The client went away; `answer` is what had arrived, marked `meta.partial`. */
  | { outcome: 'client-abort'; answer: Message | undefined }
  | { outcome: 'timeout' | 'truncated'; answer: undefined };

export interface RelayOptions {
  dialect: Dialect;
  idleMs: number;
  abort: AbortController;
  /** Accumulates the answer for the log (a session call); absent: nothing is logged. */
  accumulator?: AnswerAccumulator | undefined;
  /** When the client goes away: keep reading the upstream to its end for the log. @default false */
  keepReading?: boolean;
  /** The client's request signal: its abort is a disconnect (where the runtime reports one). */
  client?: AbortSignal | undefined;
  /**
   * A chunk handed to the client and not taken for this long: the client is gone (the runtime told
   * nothing). @default CLIENT_STALL_MS
   */
  stallMs?: number;
  waitUntil(promise: Promise<unknown>): void;
  onEnd(end: StreamEnd): void;
}

/**
 * How long a chunk may wait for the client to take it before the client counts as gone: far above
 * the microseconds a live reader takes, short enough that a place among the calls in flight comes
 * back within seconds.
 */
export const CLIENT_STALL_MS = 2_000;

/** The stream the client reads: the upstream's bytes as they come, ended by a fault event if needed. */
export function relayStream(body: ReadableStream<Uint8Array>, o: RelayOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const sse = createSseReader();
  const encoder = new TextEncoder();
  let last = false;
  let ended = false;
  const end = (outcome: StreamEnd['outcome']) => {
    if (ended) return;
    ended = true;
    if (outcome === 'timeout' || outcome === 'truncated') return o.onEnd({ outcome, answer: undefined });
    const answer = o.accumulator?.finish();
    if (outcome === 'client-abort' && answer) answer.meta = { ...answer.meta, partial: true };
    o.onEnd({ outcome, answer });
  };
  const take = (events: SseEvent[]) => {
    for (const e of events) {
      o.accumulator?.push(e);
      if (isLastEvent(o.dialect, e)) last = true;
    }
  };
  /** One read: the chunk, or how the stream ended. */
  const next = async (): Promise<Uint8Array | 'timeout' | 'broken' | 'done'> => {
    let r: Awaited<ReturnType<typeof reader.read>> | typeof IDLE;
    try {
      r = await withinIdle(reader.read(), o.idleMs);
    } catch {
      return 'broken';
    }
    if (r === IDLE) return 'timeout';
    if (r.done) {
      take(sse.end());
      return 'done';
    }
    take(sse.push(r.value));
    return r.value;
  };
  const stop = () => {
    o.abort.abort();
    reader.cancel().catch(() => undefined);
  };
  let stall: ReturnType<typeof setTimeout> | undefined;
  const unwatch = () => {
    clearTimeout(stall);
    stall = undefined;
  };
  /** The client went away: the upstream is stopped (or read to its end for the log), once. */
  let left = false;
  const gone = () => {
    unwatch();
    if (left || ended) return;
    left = true;
    if (!o.keepReading) {
      stop();
      return end('client-abort');
    }
    const drain = async () => {
      for (;;) {
        const chunk = await next();
        if (chunk instanceof Uint8Array) continue;
        if (chunk !== 'done') stop();
        return end(chunk === 'done' ? (last ? 'complete' : 'truncated') : 'timeout');
      }
    };
    o.waitUntil(drain());
  };
  o.client?.addEventListener('abort', () => {
    if (!o.keepReading) gone();
  });
  const stallMs = o.stallMs ?? CLIENT_STALL_MS;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      unwatch();
      const chunk = await next();
      // Ended meanwhile (the client's signal, or a stall): the upstream was stopped; nothing more to send.
      if (ended) {
        try {
          controller.close();
        } catch {}
        return;
      }
      if (chunk instanceof Uint8Array) {
        controller.enqueue(chunk);
        // Taken at once by a live reader (its next pull clears this); left waiting, the client is gone.
        stall = setTimeout(() => {
          gone();
          controller.error(new Error(`the client took no chunk for ${stallMs} ms`));
        }, stallMs);
        return;
      }
      if (chunk === 'done' && last) {
        controller.close();
        return end('complete');
      }
      const why =
        chunk === 'timeout'
          ? `the upstream sent nothing for ${o.idleMs} ms`
          : chunk === 'broken'
            ? 'the upstream stream failed'
            : 'the upstream stream ended before its last event';
      controller.enqueue(encoder.encode(faultEvent(o.dialect, why)));
      controller.close();
      if (chunk !== 'done') stop();
      end(chunk === 'timeout' ? 'timeout' : 'truncated');
    },
    cancel() {
      gone();
    },
  });
}
