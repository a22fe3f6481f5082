/**
 * An upstream's answer never carries the service's secrets back to a client: a misconfigured or
 * hostile endpoint, or a debugging proxy, may reflect the request's `authorization` in a header or in
 * its body. Every upstream answer passes through `scrubResponse` before the proxy reads, logs or relays
 * any of it: each credential the proxy sent (the configured key or the request's
 * `x-upstream-api-key`), each configured provider key and the service's other secrets (variables
 * named `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`) are replaced by `[redacted]` in its
 * headers and in its body — as written, JSON-escaped and percent-encoded — whole or streamed, across
 * chunk boundaries. The stream is pulled, not pushed: a chunk is read from the upstream only when the
 * client reads, so the relay's timeouts see the client as before; it is read in bounded pieces
 * (chunk-reader.ts), so a huge event never holds the isolate in one read. A secret
 * shorter than `MIN_SECRET_CHARS` is not scrubbed (it would cut ordinary text); one split by the
 * upstream into separate pieces of text (two SSE deltas) is not recognised.
 */
import type { Env } from '../env.ts';
import { chunkReader } from './chunk-reader.ts';

/** Shortest secret scrubbed. @default 8 */
export const MIN_SECRET_CHARS = 8;
export const REDACTED = '[redacted]';

/** Request headers that carry a credential to an upstream. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'] as const;
const SECRET_VAR = /(?:_API_KEY|_TOKEN|_SECRET|_PASSWORD)$/;

/** The forms a secret may be written in: as is, JSON-escaped, with `\/`, percent-encoded. */
function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, json.replaceAll('/', '\\/'), encodeURIComponent(secret)])];
}

/**
 * What to scrub from the answer to a request sent with `sent`: its credentials and the secrets of the
 * configuration, each in every form, longest first (a longer form is replaced before one inside it).
 */
export function secretsToScrub(env: Env, sent: Headers): string[] {
  const secrets = new Set<string>();
  for (const name of CREDENTIAL_HEADERS) {
    const value = sent.get(name);
    if (value === null) continue;
    secrets.add(value);
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(value);
    if (bearer) secrets.add(bearer[1]!);
  }
  for (const [name, value] of Object.entries(env))
    if (SECRET_VAR.test(name) && typeof value === 'string') secrets.add(value.trim());
  const out = new Set<string>();
  for (const s of secrets) if (s.length >= MIN_SECRET_CHARS) for (const f of forms(s)) out.add(f);
  return [...out].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.replaceAll(s, REDACTED);
  return out;
}

const encoder = new TextEncoder();

/** Byte patterns of the secrets (all ASCII: keys are printable ASCII, and so are their forms). */
interface Patterns {
  bytes: Uint8Array[];
  redacted: Uint8Array;
}

function startsAt(hay: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > hay.length) return false;
  for (let k = 0; k < needle.length; k++) if (hay[at + k] !== needle[k]) return false;
  return true;
}

/** Every secret in `hay`, left to right, as [start, end) (longest first where two start together). */
function findAll(hay: Uint8Array, p: Patterns): Array<[number, number]> {
  // Candidates by the secrets' first bytes (found natively), then checked left to right.
  const candidates: number[] = [];
  for (const first of new Set(p.bytes.map((b) => b[0]!)))
    for (let i = hay.indexOf(first); i >= 0; i = hay.indexOf(first, i + 1)) candidates.push(i);
  candidates.sort((a, b) => a - b);
  const found: Array<[number, number]> = [];
  let next = 0;
  for (const i of candidates) {
    if (i < next) continue;
    const hit = p.bytes.find((needle) => startsAt(hay, i, needle));
    if (!hit) continue;
    found.push([i, i + hit.length]);
    next = i + hit.length;
  }
  return found;
}

/** How many bytes at the end of `hay` could begin a secret that the next chunk completes. */
function pendingTail(hay: Uint8Array, p: Patterns): number {
  let longest = 0;
  for (const needle of p.bytes) {
    const max = Math.min(needle.length - 1, hay.length);
    for (let n = max; n > longest; n--) {
      let ok = true;
      for (let k = 0; k < n && ok; k++) ok = hay[hay.length - n + k] === needle[k];
      if (ok) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

/** `hay[0..cut)` with the secrets `found` in it replaced (none crosses `cut`). */
function redact(
  hay: Uint8Array,
  cut: number,
  found: ReadonlyArray<[number, number]>,
  p: Patterns,
): Uint8Array {
  const inside = found.filter(([, e]) => e <= cut);
  if (inside.length === 0) return hay.subarray(0, cut);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const [b, e] of inside) {
    parts.push(hay.subarray(from, b), p.redacted);
    from = e;
  }
  parts.push(hay.subarray(from, cut));
  const out = new Uint8Array(parts.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of parts) {
    out.set(x, at);
    at += x.length;
  }
  return out;
}

/**
 * What of `hay` can go now, scrubbed, and what waits for the next chunk: the bytes that may begin a
 * secret (and none of a secret found whole, which goes whole). At the end (`last`), everything goes.
 */
function step(hay: Uint8Array, p: Patterns, last: boolean): { out: Uint8Array; carry: Uint8Array } {
  const found = findAll(hay, p);
  let cut = last ? hay.length : hay.length - pendingTail(hay, p);
  for (const [b, e] of found) if (b < cut && e > cut) cut = e;
  return { out: redact(hay, cut, found, p), carry: hay.slice(cut) };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `body` with every secret replaced, read from the upstream as the consumer pulls. */
export function scrubStream(
  body: ReadableStream<Uint8Array>,
  secrets: readonly string[],
): ReadableStream<Uint8Array> {
  const p: Patterns = { bytes: secrets.map((s) => encoder.encode(s)), redacted: encoder.encode(REDACTED) };
  const reader = chunkReader(body);
  let carry: Uint8Array = new Uint8Array(0);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            if (carry.length > 0) controller.enqueue(step(carry, p, true).out);
            controller.close();
            return;
          }
          const next = step(concat(carry, value), p, false);
          carry = next.carry;
          if (next.out.length > 0) {
            controller.enqueue(next.out);
            return;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The answer with its headers and body scrubbed (unchanged when there is nothing to scrub). */
export function scrubResponse(res: Response, secrets: readonly string[]): Response {
  if (secrets.length === 0) return res;
  const headers = new Headers();
  res.headers.forEach((value, name) => {
    headers.set(name, scrubText(value, secrets));
  });
  // The body's length may change.
  headers.delete('content-length');
  return new Response(res.body ? scrubStream(res.body, secrets) : null, {
    status: res.status,
    statusText: res.statusText,
    headers,
  });
}
