/**
 * Content digests of messages: one mechanism to tell whether a message is one already seen, used by
 * the proxy against the session log and by the core wherever a history is matched against what was
 * seen or sent before. Callers rebuild their message objects every call (the OpenAI SDK adds
 * `refusal: null`, Anthropic clients move `cache_control` around), so the digest covers what the
 * model reads — role, name, text, images, reasoning with its signature, tool calls with parsed
 * arguments, tool results — and not ids, metadata, provider extras or usage.
 */
import type { JsonValue, Message, Part } from './types.ts';

function canonicalPart(p: Part): JsonValue {
  switch (p.type) {
    case 'text':
      return ['t', p.text];
    case 'image':
      return ['i', p.url ?? null, p.data ?? null, p.mediaType ?? null];
    case 'reasoning':
      return ['r', p.text, p.signature ?? null, p.redacted === true];
    case 'tool-call':
      return ['c', p.id, p.name, p.args];
    case 'tool-result':
      // Content and denial only when present, so that digests of plain results stay what they were.
      return p.content !== undefined || p.denied
        ? ['o', p.callId, p.output, p.isError === true, (p.content ?? null) as JsonValue, p.denied === true]
        : ['o', p.callId, p.output, p.isError === true];
    case 'opaque':
      return ['x', p.source, p.value];
    case 'tool-approval':
      return ['a', p.callId, p.approvalId, p.phase, p.approved ?? null, p.reason ?? null];
  }
}

/** The canonical text a message's digest is taken of. */
export function canonicalMessage(m: Message): string {
  return JSON.stringify([m.role, m.name ?? null, m.parts.map(canonicalPart)]);
}

/**
 * Two independent 32-bit multiplicative hashes (FNV-1a and a murmur-style mix) of the text, plus its
 * length: 64 bits that only need to tell apart the messages of one history at the same position.
 * Synchronous JavaScript: 200 Web Crypto digests cost more in call overhead than this does in hashing
 * (a 200-message history of 378 KiB hashes in about 2 ms).
 */
export function hashText(text: string): string {
  return hashEnd(hashMore(HASH_START, text));
}

/** A hash taken so far: both states and the length hashed (`hashMore` continues it, `hashEnd` writes it). */
export type HashState = readonly [a: number, b: number, length: number];

export const HASH_START: HashState = [0x811c9dc5, 0x9747b28c, 0];

/** `state` continued over `text`: hashing `x` then `y` this way is hashing `x + y`. */
export function hashMore(state: HashState, text: string): HashState {
  let [a, b] = state;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a, b, state[2] + text.length];
}

/** `n` as 8 hex digits. */
function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

export function hashEnd([a, b, length]: HashState): string {
  return `${hex(a)}${hex(b)}-${length.toString(36)}`;
}

// Messages are immutable once handed over: a digest is taken once per parts array, with the role
// and name it was taken with. A copy that shares the parts (an archived result, a message given new
// meta) has the original's digest without hashing its content again.
const digests = new WeakMap<Message['parts'], { role: string; name: string | undefined; digest: string }>();

/** The content digest of a message (see the file's head for what it covers); cached per parts array. */
export function messageDigest(m: Message): string {
  const hit = digests.get(m.parts);
  if (hit && hit.role === m.role && hit.name === m.name) return hit.digest;
  const digest = hashText(canonicalMessage(m));
  digests.set(m.parts, { role: m.role, name: m.name, digest });
  return digest;
}

/** Deep equality of two JSON values (key order ignored), in plain loops: it runs on every message of a rebuilt history. */
function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(b, k) || !sameJson(a[k], b[k])) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

function samePart(a: Part, b: Part): boolean {
  switch (a.type) {
    case 'text':
      return b.type === 'text' && a.text === b.text;
    case 'image':
      return (
        b.type === 'image' &&
        (a.url ?? null) === (b.url ?? null) &&
        (a.data ?? null) === (b.data ?? null) &&
        (a.mediaType ?? null) === (b.mediaType ?? null)
      );
    case 'reasoning':
      return (
        b.type === 'reasoning' &&
        a.text === b.text &&
        (a.signature ?? null) === (b.signature ?? null) &&
        (a.redacted === true) === (b.redacted === true)
      );
    case 'tool-call':
      return b.type === 'tool-call' && a.id === b.id && a.name === b.name && sameJson(a.args, b.args);
    case 'tool-result':
      return (
        b.type === 'tool-result' &&
        a.callId === b.callId &&
        (a.isError === true) === (b.isError === true) &&
        (a.denied === true) === (b.denied === true) &&
        sameJson(a.output, b.output) &&
        sameJson((a.content ?? null) as JsonValue, (b.content ?? null) as JsonValue)
      );
    case 'opaque':
      return b.type === 'opaque' && a.source === b.source && sameJson(a.value, b.value);
    case 'tool-approval':
      return (
        b.type === 'tool-approval' &&
        a.callId === b.callId &&
        a.approvalId === b.approvalId &&
        a.phase === b.phase &&
        a.approved === b.approved &&
        a.reason === b.reason
      );
  }
}

/**
 * Whether two messages have the same content in the digest's sense (what the model reads), compared
 * directly: for a message object rebuilt by a framework next to the one seen before, this costs a
 * string comparison per part instead of hashing both.
 */
export function sameContent(a: Message, b: Message): boolean {
  return (
    a === b || (a.role === b.role && (a.name ?? null) === (b.name ?? null) && sameParts(a.parts, b.parts))
  );
}

function sameParts(a: readonly Part[], b: readonly Part[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !samePart(a[i]!, b[i]!)) return false;
  return true;
}
