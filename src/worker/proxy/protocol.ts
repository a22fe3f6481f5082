/**
 * What the proxy needs from a provider protocol: read a client request into neutral messages (the
 * rest of the body kept as sent), write the prepared messages back into that body, read the answer
 * (whole or streamed) into one neutral assistant message with the provider's usage, and tell a
 * context-length error from any other.
 */
import { type Dialect, type JsonValue, type Message, type Usage, usageFromRecord } from '../../core/index.ts';
import type { SseEvent } from './sse.ts';

export type ProviderId = 'openai' | 'anthropic';

export interface ProxyRequest {
  /** The client's body, untouched: every field but the messages (and system) is forwarded as is. */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** The client's system prompt as text (OpenAI: its leading system/developer messages). */
  systemText: string;
  tools: JsonValue[] | undefined;
  /** The conversation, neutral, without the leading system prompt. */
  messages: Message[];
  /**
   * Protocols whose history elements convert each on its own (`historyField`): the neutral messages
   * of every element of the client's list, in order, for the next call to reuse.
   */
  converted?: Message[][];
}

/** The first `count` elements of the client's list, known (same text) from its previous call. */
export interface KnownElements {
  count: number;
  /** The neutral messages of each of them (and maybe of more elements, not to be used). */
  elements: ReadonlyArray<readonly Message[]>;
}

export interface AnswerAccumulator {
  push(event: SseEvent): void;
  /** The whole answer once the stream ended; `undefined` when it carried no usable answer. */
  finish(): Message | undefined;
  /**
   * The usage the events so far reported (an answer cut after it still cost it); `undefined` when none
   * did. What the tenant is counted for, logged or not.
   */
  usage(): Usage | undefined;
}

/** `raw` as a neutral usage when it is a provider's usage record (each dialect's fields); else undefined. */
export function usageOf(raw: unknown): Usage | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  return usageFromRecord(raw as Record<string, JsonValue>);
}

/** The usage of a whole answer's body (`usage` in each dialect), whatever the rest of it holds. */
export function answerUsage(json: unknown): Usage | undefined {
  return json !== null && typeof json === 'object' ? usageOf((json as { usage?: unknown }).usage) : undefined;
}

export interface Protocol {
  id: ProviderId;
  dialect: Extract<Dialect, 'openai' | 'anthropic' | 'responses'>;
  /** Path appended to the upstream base URL. */
  path: string;
  /**
   * Validates the body (throws `invalid_input` naming the field) and converts it. With `known`, the
   * first `known.count` elements of the history field are those of the client's previous call,
   * character for character: their neutral forms are taken as they are.
   */
  parse(body: unknown, known?: KnownElements): ProxyRequest;
  /**
   * The body field holding the history when each of its elements converts on its own, without its
   * neighbours (so a call can reuse what the previous one converted); absent when elements merge.
   */
  historyField?: string;
  /** The body field holding the client's history list (`messages`, `input`), whatever its elements. */
  listField: string;
  /** The body to forward: `request.body` with the prepared messages and the memory block. */
  render(request: ProxyRequest, send: readonly Message[], memory: string): Record<string, unknown>;
  /** A non-streamed answer → one neutral assistant message (with usage), or `undefined`. */
  answer(json: unknown): Message | undefined;
  accumulator(): AnswerAccumulator;
  /** Headers for the upstream: the provider's auth with `key`, plus the client's protocol headers. */
  upstreamHeaders(client: Headers, key: string | undefined): Headers;
}

/** Client headers copied to the upstream when present (never `authorization` or `x-api-key`). */
export function copyHeaders(client: Headers, names: readonly string[], into: Headers): Headers {
  for (const name of names) {
    const v = client.get(name);
    if (v !== null) into.set(name, v);
  }
  return into;
}
