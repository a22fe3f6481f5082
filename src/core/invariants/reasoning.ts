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

/**
 * Keys under which frameworks carry verified reasoning in their own metadata: Gemini's
 * `thoughtSignature` (AI SDK `providerOptions.google`, LangChain `additional_kwargs`), Responses
 * `encrypted_content` / AI SDK `reasoningEncryptedContent`, Anthropic `signature` / `redactedData`.
 */
const RIDING_KEYS = new Set([
  'thoughtSignature',
  'thought_signature',
  'encrypted_content',
  'reasoningEncryptedContent',
  'signature',
  'redactedData',
]);

/** Verified reasoning riding in a bag, found up to three levels down (`providerOptions.google.…`). */
function ridingIn(bag: JsonValue | undefined, out: string[], path: string, depth: number): void {
  if (!bag || typeof bag !== 'object' || Array.isArray(bag) || depth > 3) return;
  for (const [k, v] of Object.entries(bag)) {
    if (typeof v === 'string' && RIDING_KEYS.has(k)) out.push(`${path}${k}=${v}`);
    else ridingIn(v, out, `${path}${k}.`, depth + 1);
  }
}

/**
 * Verified reasoning that rides in a part's metadata slot (`extra`), a framework's bag
 * (`provider.framework`) or a Chat Completions tool call's extra keys (`provider.openai`, Gemini's
 * `extra_content.google.thought_signature`) instead of where the dialect adapters put it. Each as `path=value`, in order.
 */
export function ridingReasoning(p: Part): string[] {
  const out: string[] = [];
  ridingIn(p.extra, out, 'extra.', 0);
  ridingIn(p.provider?.openai, out, 'openai.', 0);
  ridingIn(p.provider?.framework, out, 'framework.', 0);
  return out;
}

/** A part's Gemini `thoughtSignature`, when it came with one (or carries one in its metadata). */
export function thoughtSignature(p: Part): string | undefined {
  const extras = field(p.provider?.gemini, 'part');
  const sig =
    extras && typeof extras === 'object' && !Array.isArray(extras) ? extras.thoughtSignature : undefined;
  if (typeof sig === 'string') return sig;
  if (p.extra === undefined && p.provider?.framework === undefined && p.provider?.openai === undefined)
    return undefined;
  const riding = ridingReasoning(p).find((r) => /(^|\.)thought_?[sS]ignature=/.test(r));
  return riding?.slice(riding.indexOf('=') + 1);
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
  if (p.extra !== undefined || p.provider?.framework !== undefined) {
    // What a framework adapter already put where the dialect rules look is not counted twice.
    const placed = keys.join('|');
    const riding = ridingReasoning(p).filter((r) => !placed.includes(r.slice(r.indexOf('=') + 1)));
    if (riding.length > 0) keys.push(`riding:${p.type}:${textOf(p)}:${riding.join(',')}`);
  }
  return keys.length > 0 ? keys.join('|') : undefined;
}

/** What a verified part says that its signature covers: reasoning or text, a call's id and arguments. */
function textOf(p: Part): string {
  if (p.type === 'text' || p.type === 'reasoning') return p.text;
  if (p.type === 'tool-call') return `${p.id}:${JSON.stringify(p.args)}`;
  return '';
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

/**
 * Gemini: "Please ensure that function call turn comes immediately after a user turn or after a function
 * response turn". Indices of assistant messages with calls whose Gemini content would open the
 * conversation or follow another model content (`toGemini` merges an assistant message from elsewhere
 * into the model content before it, so only one that starts its own content counts).
 */
export function misplacedCallTurns(messages: readonly Message[]): number[] {
  const out: number[] = [];
  let previous: Message['role'] | undefined;
  messages.forEach((m, i) => {
    if (m.role === 'system' && previous === undefined) return; // systemInstruction
    const merges =
      m.role === 'assistant' && previous === 'assistant' && m.provider?.gemini?.content === undefined;
    if (m.role === 'assistant' && !merges && m.parts.some((p) => p.type === 'tool-call'))
      if (previous !== 'user' && previous !== 'tool') out.push(i);
    previous = m.role;
  });
  return out;
}
