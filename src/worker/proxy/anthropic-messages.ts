/**
 * Anthropic Messages (`POST {base}/v1/messages`) for the proxy. The request's `system` is the
 * client's system prompt: forwarded as sent (with the memory block and any summary ctxkit put
 * first appended), counted, never stored.
 */
import * as z from 'zod';
import { fromAnthropic, type JsonValue, type Message, parseWith, toAnthropic } from '../../core/index.ts';
import { clientCacheControl, systemWithBreakpoint } from './cache-hints.ts';
import { wrapAnswer } from './opaque-json.ts';
import {
  type AnswerAccumulator,
  copyHeaders,
  type Protocol,
  type ProxyRequest,
  usageOf,
} from './protocol.ts';
import { requestModelSchema, requestToolsSchema } from './request-tools.ts';
import { eventJson } from './sse.ts';

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const requestSchema = z.looseObject({
  model: requestModelSchema,
  messages: z.array(z.unknown()).min(1, 'at least one message'),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  stream: z.boolean().nullish(),
  tools: requestToolsSchema.nullish(),
});

/** @default the API version the SDKs send */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
const PASS_HEADERS = ['anthropic-version', 'anthropic-beta', 'accept'] as const;
/** Answer blocks ctxkit's message model holds; others (server tools, citations-only blocks) are not logged. */
const KNOWN_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);

type Block = Record<string, JsonValue>;
type SystemValue = string | Block[];

function blocksOf(v: SystemValue): Block[] {
  return typeof v === 'string' ? [{ type: 'text', text: v }] : v;
}

/** The client's system, then ctxkit's own leading system text (summaries), then the memory block. */
function composeSystem(
  client: SystemValue | undefined,
  own: SystemValue | undefined,
  memory: string,
): SystemValue | undefined {
  const parts = [client, own, memory === '' ? undefined : memory].filter(
    (p): p is SystemValue => p !== undefined,
  );
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  if (parts.every((p) => typeof p === 'string')) return (parts as string[]).join('\n\n');
  return parts.flatMap(blocksOf);
}

function answerMessage(content: unknown, usage: unknown, model: unknown): Message | undefined {
  if (!Array.isArray(content)) return undefined;
  const blocks = content.filter((b) => KNOWN_BLOCKS.has((b as { type?: string })?.type ?? ''));
  if (blocks.length === 0) return undefined;
  const raw: Record<string, unknown> = { role: 'assistant', content: blocks };
  wrapAnswer('anthropic', raw);
  if (usage !== null && typeof usage === 'object') raw.usage = usage;
  if (typeof model === 'string') raw.model = model;
  try {
    return fromAnthropic([raw]).find((m) => m.role === 'assistant');
  } catch {
    return undefined;
  }
}

function accumulator(): AnswerAccumulator {
  const blocks = new Map<number, Record<string, unknown>>();
  const json = new Map<number, string>();
  let usage: Record<string, unknown> = {};
  let model: unknown;
  return {
    push(event) {
      const e = eventJson(event);
      if (!e) return;
      switch (e.type) {
        case 'message_start': {
          const m = (e.message ?? {}) as Record<string, unknown>;
          model = m.model;
          if (m.usage && typeof m.usage === 'object') usage = { ...(m.usage as object) };
          break;
        }
        case 'content_block_start': {
          const index = Number(e.index);
          const block = { ...((e.content_block ?? {}) as Record<string, unknown>) };
          if (block.type === 'tool_use') json.set(index, '');
          blocks.set(index, block);
          break;
        }
        case 'content_block_delta': {
          const index = Number(e.index);
          const block = blocks.get(index);
          const d = (e.delta ?? {}) as Record<string, unknown>;
          if (!block) break;
          if (d.type === 'text_delta') block.text = `${(block.text as string) ?? ''}${d.text as string}`;
          else if (d.type === 'thinking_delta')
            block.thinking = `${(block.thinking as string) ?? ''}${d.thinking as string}`;
          else if (d.type === 'signature_delta') block.signature = d.signature;
          else if (d.type === 'input_json_delta')
            json.set(index, `${json.get(index) ?? ''}${d.partial_json as string}`);
          break;
        }
        case 'message_delta': {
          const d = (e.delta ?? {}) as Record<string, unknown>;
          if (e.usage && typeof e.usage === 'object') usage = { ...usage, ...(e.usage as object) };
          if (typeof d.stop_reason === 'string') usage.stop_reason = d.stop_reason;
          break;
        }
      }
    },
    finish() {
      const content = [...blocks.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, block]) => {
          if (block.type !== 'tool_use') return block;
          const text = json.get(index) ?? '';
          try {
            return { ...block, input: text === '' ? (block.input ?? {}) : JSON.parse(text) };
          } catch {
            return undefined;
          }
        });
      if (content.some((b) => b === undefined)) return undefined;
      return answerMessage(content, usage, model);
    },
    usage: () => usageOf(usage),
  };
}

export const anthropicMessages: Protocol = {
  id: 'anthropic',
  dialect: 'anthropic',
  path: '/v1/messages',
  historyField: 'messages',
  listField: 'messages',
  parse(body, known): ProxyRequest {
    const b = parseWith(requestSchema, body, []);
    // Each message converts on its own (a user message with tool results becomes a tool message and
    // maybe a user one); those the previous call already converted are taken as they are.
    const reused = known ? Math.min(known.count, b.messages.length) : 0;
    const elements: Message[][] = [
      ...(known?.elements.slice(0, reused) ?? []).map((e) => [...e]),
      ...b.messages
        .slice(reused)
        .map((raw, j) => fromAnthropic([raw], { idPrefix: `m${reused + j}.`, start: reused + j })),
    ];
    const system = b.system;
    const systemText =
      system === undefined
        ? ''
        : typeof system === 'string'
          ? system
          : system.map((s) => s.text).join('\n\n');
    return {
      body: b as Record<string, unknown>,
      model: b.model,
      stream: b.stream === true,
      systemText,
      tools: b.tools ?? undefined,
      messages: elements.flat(),
      converted: elements,
    };
  },
  render(request, send, memory) {
    // Breakpoints where the client set none (cache-hints.ts): the messages' here, the end of the
    // system prompt once it is composed.
    const own = !clientCacheControl(request.body);
    const rendered = toAnthropic(send, { cacheControl: own ? 'messages' : false });
    const { system: _client, ...rest } = request.body;
    const composed = composeSystem(
      request.body.system as SystemValue | undefined,
      rendered.system as SystemValue | undefined,
      memory,
    );
    const system = composed !== undefined && own ? systemWithBreakpoint(composed) : composed;
    return { ...rest, ...(system === undefined ? {} : { system }), messages: rendered.messages };
  },
  answer(json) {
    const b = json as {
      content?: unknown;
      usage?: Record<string, unknown>;
      model?: unknown;
      stop_reason?: unknown;
    };
    if (!b || typeof b !== 'object') return undefined;
    const usage =
      b.usage && typeof b.stop_reason === 'string' ? { ...b.usage, stop_reason: b.stop_reason } : b.usage;
    return answerMessage(b.content, usage, b.model);
  },
  accumulator,
  upstreamHeaders(client, key) {
    const h = new Headers({ 'content-type': 'application/json' });
    if (key) h.set('x-api-key', key);
    copyHeaders(client, PASS_HEADERS, h);
    if (!h.has('anthropic-version')) h.set('anthropic-version', DEFAULT_ANTHROPIC_VERSION);
    return h;
  },
};
