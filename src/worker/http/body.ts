/**
 * Request bodies: JSON only, size-limited twice — on the declared `Content-Length` before reading,
 * and on the bytes actually read (a client can lie or stream without a length).
 */
import { CtxError } from '../../core/index.ts';

/** @default 1 MiB */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

export function maxBodyBytes(raw: unknown): number {
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_BODY_BYTES;
}

function tooLarge(max: number): CtxError {
  return new CtxError('payload_too_large', `request body exceeds ${max} bytes`, { path: 'body' });
}

/** Reads the body as UTF-8 text, at most `max` bytes. */
export async function readText(request: Request, max: number): Promise<string> {
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
      // Stop reading; the runtime discards the rest. (Cancelling resets the connection while the
      // client may still be sending, and it would see a network error instead of the 413.)
      reader.releaseLock();
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
export async function readJson(
  request: Request,
  max: number,
  options: { allowEmpty?: boolean } = {},
): Promise<unknown> {
  return (await readJsonText(request, max, options)).value;
}

/** `readJson`, with the text it parsed. */
export async function readJsonText(
  request: Request,
  max: number,
  options: { allowEmpty?: boolean } = {},
): Promise<{ text: string; value: unknown }> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new CtxError('unsupported', 'content-type must be application/json', {
      path: 'headers.content-type',
    });
  const text = await readText(request, max);
  if (text.trim() === '') {
    if (options.allowEmpty) return { text, value: undefined };
    throw new CtxError('invalid_input', 'body is empty (expected a JSON object)', { path: 'body' });
  }
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch (error) {
    throw new CtxError('invalid_input', `body is not valid JSON: ${(error as Error).message}`, {
      path: 'body',
    });
  }
}
