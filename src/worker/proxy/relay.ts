/**
 * The upstream leg of a proxied call, bounded in time, in size and tied to the client: the fetch is
 * aborted when no answer begins within the first-byte timeout (the client gets a 504 in the
 * provider's own error shape) or when the client goes away; a whole body is read with an idle timeout
 * between chunks and the answer bound. Timeouts count the upstream's silence while this isolate runs
 * (`silence.ts`), never a stretch the isolate was busy elsewhere. The stream relay is relay-stream.ts.
 */

import { SILENT, STOPPED, withinSilence } from '../http/silence.ts';
import { chunkReader } from './chunk-reader.ts';
import type { Protocol } from './protocol.ts';
import type { SseEvent } from './sse.ts';
import type { UpstreamTimeouts } from './timeouts.ts';

type Dialect = Protocol['dialect'];

/** @default 32 MiB, what the proxy accepts as a request: an answer is bounded as its question */
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** Why a call to the upstream ended without its whole answer. */
export class UpstreamFault extends Error {
  constructor(
    /** `bad-answer`: an answer the proxy cannot hand on (its tool loop's bound passed, tool-loop.ts). */
    readonly kind: 'timeout' | 'client-gone' | 'too-large' | 'bad-answer',
    message: string,
  ) {
    super(message);
  }
}

/** The status a fault is answered (and journaled) with: 504 timeout, 499 client gone, else 502. */
export function faultStatus(f: UpstreamFault): number {
  return f.kind === 'timeout' ? 504 : f.kind === 'client-gone' ? 499 : 502;
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

/**
 * The provider's own stream error event (the SDKs raise it as an API error). The relay forwards whole
 * events only, so this always starts on a fresh line.
 */
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

/** The fault of an upstream that answered with a redirect (3xx), which the proxy does not follow. */
export function redirected(status: number, baseVariable: string): UpstreamFault {
  return new UpstreamFault(
    'bad-answer',
    `the upstream answered with a redirect (${status}), which the proxy does not follow: set ${baseVariable} to the address the provider answers at`,
  );
}

/** Statuses whose response carries no body by definition (Fetch's null body statuses, 1xx aside). */
const BODILESS = new Set([204, 205, 304]);

/**
 * A success with no body (204, 205, or a 2xx whose body is absent) is no answer to a chat call:
 * relayed, a client's SDK fails parsing nothing and the call would be journaled a success.
 */
export function bodiless(res: Response): UpstreamFault | undefined {
  if (!BODILESS.has(res.status) && (res.body !== null || !res.ok)) return undefined;
  return new UpstreamFault(
    'bad-answer',
    `the upstream answered ${res.status} with no body, which is not an answer to this call`,
  );
}

/**
 * The upstream's answer (a redirect is returned as it came, never followed), aborted at the first-byte timeout, when `client` aborts, or when `replaced()`
 * says a retry of the same request took this call's place (retries.ts).
 */
export async function fetchUpstream(
  url: string,
  init: RequestInit,
  timeouts: UpstreamTimeouts,
  client: AbortSignal | undefined,
  abort = new AbortController(),
  replaced: () => boolean = () => false,
): Promise<{ res: Response; abort: AbortController }> {
  const gone = () => abort.abort(new UpstreamFault('client-gone', 'the client went away'));
  if (client?.aborted) gone();
  client?.addEventListener('abort', gone, { once: true });
  // Never follow a redirect: the upstream comes only from configuration, and fetch would resend the
  // body (a 307/308) and every header but `authorization` (an Anthropic `x-api-key` included) to it.
  const answer = fetch(url, { ...init, redirect: 'manual', signal: abort.signal });
  answer.catch(() => undefined);
  try {
    const res = await withinSilence(answer, timeouts.firstByteMs, replaced);
    if (res !== SILENT && res !== STOPPED) return { res, abort };
    const fault =
      res === STOPPED
        ? new UpstreamFault('client-gone', 'a retry of the same request replaced this call')
        : new UpstreamFault(
            'timeout',
            `the upstream did not begin its answer within ${timeouts.firstByteMs} ms`,
          );
    abort.abort(fault);
    throw fault;
  } catch (error) {
    const reason = abort.signal.reason;
    throw reason instanceof UpstreamFault ? reason : error;
  }
}

/**
 * A whole (non-streamed) body, with the idle timeout between its chunks and at most `maxBytes`
 * (past it: `UpstreamFault('too-large')`, the upstream stopped, nothing more read).
 */
export async function readBody(
  res: Response,
  idleMs: number,
  abort: AbortController,
  maxBytes = DEFAULT_MAX_ANSWER_BYTES,
): Promise<string> {
  if (!res.body) return '';
  const reader = chunkReader(res.body);
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  const stop = (fault: UpstreamFault) => {
    abort.abort(fault);
    reader.cancel().catch(() => undefined);
    return fault;
  };
  for (;;) {
    const r = await withinSilence(reader.read(), idleMs);
    if (r === SILENT) throw stop(new UpstreamFault('timeout', `the upstream sent nothing for ${idleMs} ms`));
    if (r.done) {
      parts.push(decoder.decode());
      return parts.join('');
    }
    size += r.value.byteLength;
    if (size > maxBytes) throw stop(answerTooLarge(maxBytes));
    parts.push(decoder.decode(r.value, { stream: true }));
  }
}

/** The fault of an answer past its bound, naming the variable that sets it. */
export function answerTooLarge(maxBytes: number): UpstreamFault {
  return new UpstreamFault(
    'too-large',
    `the upstream's answer exceeds ${maxBytes} bytes, the proxy's bound (PROXY_MAX_ANSWER_BYTES)`,
  );
}
