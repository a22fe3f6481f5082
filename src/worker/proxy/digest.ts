/**
 * Content digests of messages, to find what a client's history adds to the session log. Clients
 * rebuild their message objects every call (the OpenAI SDK adds `refusal: null`, Anthropic clients
 * move `cache_control` around), so the digest covers what the model reads — role, name, text,
 * images, reasoning with its signature, tool calls with parsed arguments, tool results — and not
 * ids, metadata, provider extras or usage.
 */
import { type JsonValue, type Message, type Part, sha256Hex } from '../../core/index.ts';

/** Where a logged message keeps its digest. */
export const DIGEST_META = 'proxyDigest';

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
      return ['o', p.callId, p.output, p.isError === true];
  }
}

export function canonicalMessage(m: Message): string {
  return JSON.stringify([m.role, m.name ?? null, m.parts.map(canonicalPart)]);
}

/** 32 hex characters (128 bits) of the SHA-256 of the canonical form. */
export async function messageDigest(m: Message): Promise<string> {
  return (await sha256Hex(canonicalMessage(m))).slice(0, 32);
}

/** The digest a logged message carries, if it came through the proxy. */
export function storedDigest(m: Message): string | undefined {
  const d = m.meta?.[DIGEST_META];
  return typeof d === 'string' ? d : undefined;
}

export function withDigest(m: Message, digest: string): Message {
  return { ...m, meta: { ...m.meta, [DIGEST_META]: digest } };
}
