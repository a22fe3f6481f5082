/**
 * Request bodies: JSON only, size-limited twice — on the declared `Content-Length` before reading,
 * and on the bytes actually read (a client can lie or stream without a length) — and limited in time:
 * a body that has not wholly arrived `timeoutMs` after its headers (a `Content-Length` longer than what
 * comes, a client that stalls) is a 408. Parsed JSON is depth-bounded (json-depth.ts).
 */
import { CtxError } from '../../core/index.ts';
import { ServiceError } from '../errors.ts';
import { checkJsonDepth, MAX_JSON_DEPTH } from './json-depth.ts';
import { SILENT, withinSilence } from './silence.ts';

/** @default 30 s (`BODY_READ_TIMEOUT_MS`) */
export const DEFAULT_BODY_READ_MS = 30_000;

function tooLarge(max: number): CtxError {
  return new CtxError('payload_too_large', `request body exceeds ${max} bytes`, { path: 'body' });
}

/** Reads the body as UTF-8 text, at most `max` bytes, within `timeoutMs`. */
export async function readText(
  request: Request,
  max: number,
  timeoutMs = DEFAULT_BODY_READ_MS,
): Promise<string> {
  const text = await withinSilence(readUnbounded(request, max).catch(unreadable), timeoutMs);
  if (text !== SILENT) return text;
  request.body?.cancel().catch(() => undefined);
  throw new ServiceError(
    408,
    'request_timeout',
    `the request body did not arrive within ${timeoutMs} ms (BODY_READ_TIMEOUT_MS)`,
    'body',
  );
}

/**
 * A body whose stream failed while it was read — chunked framing the runtime cannot parse (a
 * `Transfer-Encoding: chunked` body sent unframed), a connection closed before the end — is the
 * client's bad input, a 400 naming the body, not a 500.
 */
function unreadable(error: unknown): never {
  if (error instanceof CtxError || error instanceof ServiceError) throw error;
  throw new CtxError(
    'invalid_input',
    'the request body could not be read to its end (its chunked framing is broken, or the connection closed before it ended)',
    { path: 'body' },
  );
}

async function readUnbounded(request: Request, max: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > max) throw tooLarge(max);
  if (!request.body) return '';
  if (declared !== null && /^\d+$/.test(declared)) {
    // A declared length within the limit: the runtime reads the body in one go (much cheaper than
    // chunk by chunk here for a large body), and what arrives is checked against the limit again.
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > max) throw tooLarge(max);
    return decodeUtf8(bytes);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      // Read on and discard what the client is still sending, a bounded amount for a bounded time, so
      // that it gets the 413 rather than a connection closed under its feet (a network error).
      await drain(reader);
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return decodeUtf8(bytes);
}

/** What is read and discarded of a streamed body past the limit before the 413: at most 4 MiB… */
export const DRAIN_MAX_BYTES = 4 * 1_048_576;
/** …for at most 2 s (this isolate's running time, not a busy gap). Past either, the runtime resets the rest. */
export const DRAIN_MS = 2_000;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const rest = async () => {
    for (let drained = 0; drained <= DRAIN_MAX_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      drained += value.byteLength;
    }
  };
  const ended = await withinSilence(
    rest().catch(() => undefined),
    DRAIN_MS,
  );
  if (ended === SILENT) reader.cancel().catch(() => undefined);
  else reader.releaseLock();
}

const lenient = new TextDecoder('utf-8');

function decodeUtf8(bytes: Uint8Array): string {
  // The lenient decoder is the runtime's fast path; a U+FFFD in its output (an invalid sequence, or
  // a real replacement character) is rare, and only then are the bytes checked strictly.
  const text = lenient.decode(bytes);
  if (!text.includes('\uFFFD')) return text;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CtxError('invalid_input', 'body is not valid UTF-8', { path: 'body' });
  }
}

/**
 * Reads a JSON body: `application/json` only (415 otherwise), limited to `max` bytes, parsed. An empty
 * body is `undefined` with `allowEmpty`, else a 400.
 */
export interface ReadJsonOptions {
  allowEmpty?: boolean;
  /** @default DEFAULT_BODY_READ_MS */
  timeoutMs?: number;
  /** Deepest nesting accepted (a 400 naming the path past it). @default MAX_JSON_DEPTH */
  maxDepth?: number;
}

export async function readJson(
  request: Request,
  max: number,
  options: ReadJsonOptions = {},
): Promise<unknown> {
  return (await readJsonText(request, max, options)).value;
}

/** `readJson`, with the text it parsed. */
export async function readJsonText(
  request: Request,
  max: number,
  options: ReadJsonOptions = {},
): Promise<{ text: string; value: unknown }> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new CtxError('unsupported', 'content-type must be application/json', {
      path: 'headers.content-type',
    });
  const text = await readText(request, max, options.timeoutMs);
  if (text.trim() === '') {
    if (options.allowEmpty) return { text, value: undefined };
    throw new CtxError('invalid_input', 'body is empty (expected a JSON object)', { path: 'body' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CtxError('invalid_input', `body is not valid JSON: ${(error as Error).message}`, {
      path: 'body',
    });
  }
  checkJsonDepth(value, options.maxDepth ?? MAX_JSON_DEPTH);
  return { text, value };
}
