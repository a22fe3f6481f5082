/**
 * Messages in and out of the service: native neutral messages, OpenAI Chat Completions messages, an
 * Anthropic Messages request, OpenAI Responses items or Gemini contents, converted with the core
 * adapters. Incoming messages get session-unique ids (`m<seq>`) unless they bring their own `id`
 * (neutral, OpenAI and Anthropic forms: `client-ids.ts`).
 */
import * as z from 'zod';
import {
  CtxError,
  type Dialect,
  fromAnthropic,
  fromGemini,
  fromOpenAI,
  fromResponses,
  type JsonValue,
  type Message,
  parseMessages,
  toAnthropic,
  toGemini,
  toOpenAI,
  toResponsesRequest,
} from '../../core/index.ts';
import { checkJsonDepth, MAX_JSON_DEPTH } from '../http/json-depth.ts';
import { anthropicWithIds, clientIds, withOpenAIIds } from './client-ids.ts';
import type { ParsedMessages } from './parsed-messages.ts';

export type { ParsedMessages } from './parsed-messages.ts';

export const INPUT_FORMATS = ['neutral', 'openai', 'anthropic', 'responses', 'gemini'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
export type OutputDialect = InputFormat;

/** @default 500 messages per append */
export const MAX_APPEND_MESSAGES = 500;

export const appendBodySchema = z.strictObject({
  /** @default 'neutral' */
  format: z.enum(INPUT_FORMATS).optional(),
  messages: z.array(z.unknown()).min(1, 'at least one message').max(MAX_APPEND_MESSAGES),
  /**
   * The request's system prompt, stored as a system message: Anthropic `system` (string or blocks),
   * Responses `instructions` (string), Gemini `systemInstruction` (string, or its parts).
   */
  system: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).optional(),
});

export type AppendBody = z.infer<typeof appendBodySchema>;

const AUTO = '\u0000auto';

/** Incoming messages in neutral form, their JSON within the service's depth bound (a 400 naming the path). */
export function parseIncoming(body: AppendBody): ParsedMessages {
  const parsed = convertIncoming(body);
  parsed.messages.forEach((m, i) => {
    checkJsonDepth(m.parts, MAX_JSON_DEPTH, ['messages', i, 'parts']);
  });
  return parsed;
}

function convertIncoming(body: AppendBody): ParsedMessages {
  const format = body.format ?? 'neutral';
  if (body.system !== undefined && (format === 'neutral' || format === 'openai'))
    throw new CtxError(
      'invalid_input',
      'only the anthropic, responses and gemini formats take a separate system (neutral and openai: a system message)',
      { path: 'system' },
    );
  if (format === 'responses') {
    if (body.system !== undefined && typeof body.system !== 'string')
      throw new CtxError('invalid_input', 'the responses format takes instructions as a string', {
        path: 'system',
      });
    const messages = fromResponses(
      body.messages,
      body.system === undefined ? { path: 'messages' } : { path: 'messages', instructions: body.system },
    );
    return { messages, autoId: messages.map(() => true) };
  }
  if (format === 'gemini') {
    const request: Record<string, unknown> = { contents: body.messages };
    if (body.system !== undefined)
      request.systemInstruction = {
        parts: typeof body.system === 'string' ? [{ text: body.system }] : body.system,
      };
    const messages = fromGemini(request);
    return { messages, autoId: messages.map(() => true) };
  }
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
  return dialect === undefined || dialect === 'neutral' ? undefined : dialect;
}

export interface Rendered {
  /** The system prompt ctxkit built (caller's system + memory block). */
  system: string;
  /**
   * Neutral messages, OpenAI messages (system first), the Anthropic `messages`, the Responses `input`
   * items or the Gemini `contents`.
   */
  messages: JsonValue[];
  /** Anthropic only: the request's `system` (the conversation's own system messages + `system`). */
  anthropicSystem?: JsonValue;
  /** Responses only: the request's `instructions` (the conversation's own + `system`). */
  instructions?: string;
  /** Gemini only: the request's `systemInstruction` (the conversation's own + `system`). */
  systemInstruction?: JsonValue;
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
  if (dialect === 'responses') {
    const request = toResponsesRequest(send);
    const rendered: Rendered = { system, messages: request.input as JsonValue[] };
    const instructions = [request.instructions, system].filter((t) => t !== undefined && t !== '');
    if (instructions.length > 0) rendered.instructions = instructions.join('\n\n');
    return rendered;
  }
  if (dialect === 'gemini') {
    const request = toGemini(send);
    const rendered: Rendered = { system, messages: request.contents as unknown as JsonValue[] };
    const own = request.systemInstruction;
    if (own || system !== '')
      rendered.systemInstruction = {
        ...(own ?? {}),
        parts: [...(own?.parts ?? []), ...(system === '' ? [] : [{ text: system }])],
      } as JsonValue;
    return rendered;
  }
  return { system, messages: send as unknown as JsonValue[] };
}
