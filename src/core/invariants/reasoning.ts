/**
 * Reasoning that providers verify: Anthropic thinking signatures, Responses reasoning items (with
 * `encrypted_content`) and the calls produced with them, Gemini `thoughtSignature`s. These helpers
 * read the provider data the adapters keep on parts; nothing here changes it.
 */
import type { JsonValue, Message, Part } from '../messages/types.ts';

function field(bag: { [key: string]: JsonValue } | undefined, key: string): JsonValue | undefined {
  return bag?.[key];
}

/** The id of a Responses reasoning item (`rs_…`), for a reasoning part that came from one. */
export function responsesReasoningId(p: Part): string | undefined {
  if (p.type !== 'reasoning') return undefined;
  const item = field(p.provider?.responses, 'item');
  const id = item && typeof item === 'object' && !Array.isArray(item) ? item.id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** The Responses reasoning item a call was produced with (the API rejects the call without it). */
export function callReasoningId(p: Part): string | undefined {
  if (p.type !== 'tool-call') return undefined;
  const id = field(p.provider?.responses, 'reasoning');
  return typeof id === 'string' ? id : undefined;
}

/** A part's Gemini `thoughtSignature`, when it came with one. */
export function thoughtSignature(p: Part): string | undefined {
  const extras = field(p.provider?.gemini, 'part');
  const sig =
    extras && typeof extras === 'object' && !Array.isArray(extras) ? extras.thoughtSignature : undefined;
  return typeof sig === 'string' ? sig : undefined;
}

/**
 * What a provider verifies byte for byte on a part, as one string, or undefined when the part holds
 * nothing verified: a signed or redacted Anthropic thinking block (text and signature), a Responses
 * reasoning item's id and `encrypted_content`, a Gemini `thoughtSignature` and the part it sits on.
 */
export function verifiedKey(p: Part): string | undefined {
  const keys: string[] = [];
  if (p.type === 'reasoning' && p.signature !== undefined)
    keys.push(`anthropic:${p.redacted ? 'redacted' : 'thinking'}:${p.signature}:${p.text}`);
  const rs = responsesReasoningId(p);
  if (rs !== undefined) {
    const item = p.provider?.responses?.item as { encrypted_content?: JsonValue };
    if (typeof item.encrypted_content === 'string') keys.push(`responses:${rs}:${item.encrypted_content}`);
  }
  const sig = thoughtSignature(p);
  if (sig !== undefined) keys.push(`gemini:${p.type}:${p.type === 'tool-call' ? p.id : ''}:${sig}`);
  return keys.length > 0 ? keys.join('|') : undefined;
}

/** An assistant message holding reasoning and nothing else (providers reject it). */
export function isReasoningOnly(m: Message): boolean {
  return m.role === 'assistant' && m.parts.length > 0 && m.parts.every((p) => p.type === 'reasoning');
}

/** Indices of Responses reasoning parts with no other part after them in their message. */
export function unfollowedReasoning(m: Message): number[] {
  let lastOther = -1;
  m.parts.forEach((p, i) => {
    if (p.type !== 'reasoning') lastOther = i;
  });
  const out: number[] = [];
  m.parts.forEach((p, i) => {
    if (i > lastOther && responsesReasoningId(p) !== undefined) out.push(i);
  });
  return out;
}

/** Indices of calls whose Responses reasoning item is not before them in their message. */
export function separatedCalls(m: Message): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  m.parts.forEach((p, i) => {
    const rs = responsesReasoningId(p);
    if (rs !== undefined) seen.add(rs);
    const needs = callReasoningId(p);
    if (needs !== undefined && !seen.has(needs)) out.push(i);
  });
  return out;
}

/** Anthropic accepts `tool_use.id` only when it matches this. */
export const ANTHROPIC_TOOL_ID = /^[a-zA-Z0-9_-]+$/;
