/**
 * Messages in and out of the service: native neutral messages, OpenAI Chat Completions messages or
 * an Anthropic Messages request, converted with the core adapters. Incoming messages get
 * session-unique ids (`m<seq>`) unless they bring their own `id` (every format: `client-ids.ts`).
 */
import { z } from 'zod';
import {
  CtxError,
  type Dialect,
  fromAnthropic,
  fromOpenAI,
  type JsonValue,
  type Message,
  parseMessages,
  toAnthropic,
  toOpenAI,
} from '../../core/index.ts';
import { anthropicWithIds, clientIds, withOpenAIIds } from './client-ids.ts';

export const INPUT_FORMATS = ['neutral', 'openai', 'anthropic'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
export type OutputDialect = InputFormat;

/** @default 500 messages per append */
export const MAX_APPEND_MESSAGES = 500;

export const appendBodySchema = z.strictObject({
  /** @default 'neutral' */
  format: z.enum(INPUT_FORMATS).optional(),
  messages: z.array(z.unknown()).min(1, 'at least one message').max(MAX_APPEND_MESSAGES),
  /** Anthropic form only: the request's `system`, stored as a system message. */
  system: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).optional(),
});

export type AppendBody = z.infer<typeof appendBodySchema>;

/** Incoming messages in neutral form; `autoId[i]` says whether message i needs an id from the session. */
export interface ParsedMessages {
  messages: Message[];
  autoId: boolean[];
}

const AUTO = '\u0000auto';

export function parseIncoming(body: AppendBody): ParsedMessages {
  const format = body.format ?? 'neutral';
  if (body.system !== undefined && format !== 'anthropic')
    throw new CtxError('invalid_input', 'only the anthropic format takes a separate system', {
      path: 'system',
    });
  if (format === 'openai') {
    const messages = fromOpenAI(body.messages, { path: 'messages' });
    return withOpenAIIds({ messages, autoId: messages.map(() => true) }, clientIds(body.messages));
  }
  if (format === 'anthropic') {
    const withIds = anthropicWithIds(body.messages, body.system, clientIds(body.messages));
    if (withIds) return withIds;
    const messages = fromAnthropic(
      body.system === undefined ? body.messages : { system: body.system, messages: body.messages },
    );
    return { messages, autoId: messages.map(() => true) };
  }
  const withIds = body.messages.map((m) =>
    m !== null && typeof m === 'object' && !Array.isArray(m) && !('id' in m) ? { id: AUTO, ...m } : m,
  );
  const messages = parseMessages(withIds, ['messages']);
  return { messages, autoId: messages.map((m) => m.id === AUTO) };
}

/** Gives `m<seq>` ids to the messages that came without one; the DO knows the next seq. */
export function assignIds(parsed: ParsedMessages, firstSeq: number): Message[] {
  return parsed.messages.map((m, i) => (parsed.autoId[i] ? { ...m, id: `m${firstSeq + i}` } : m));
}

export function toDialect(dialect: OutputDialect | undefined): Dialect | undefined {
  return dialect === 'openai' || dialect === 'anthropic' ? dialect : undefined;
}

export interface Rendered {
  /** The system prompt ctxkit built (caller's system + memory block). */
  system: string;
  /** Neutral messages, OpenAI messages (system first), or the Anthropic `messages`. */
  messages: JsonValue[];
  /** Anthropic only: the request's `system` (the conversation's own system messages + `system`). */
  anthropicSystem?: JsonValue;
}

export function renderMessages(
  send: readonly Message[],
  system: string,
  dialect: OutputDialect | undefined,
): Rendered {
  if (dialect === 'openai') {
    const out = toOpenAI(send) as JsonValue[];
    return { system, messages: system === '' ? out : [{ role: 'system', content: system }, ...out] };
  }
  if (dialect === 'anthropic') {
    const request = toAnthropic(send);
    const rendered: Rendered = { system, messages: request.messages as unknown as JsonValue[] };
    const own = request.system;
    if (own === undefined) {
      if (system !== '') rendered.anthropicSystem = system;
    } else if (system === '') rendered.anthropicSystem = own as JsonValue;
    else if (typeof own === 'string') rendered.anthropicSystem = `${own}\n\n${system}`;
    else rendered.anthropicSystem = [...(own as JsonValue[]), { type: 'text', text: system }];
    return rendered;
  }
  return { system, messages: send as unknown as JsonValue[] };
}
