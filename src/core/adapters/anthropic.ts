/**
 * Anthropic Messages ⇄ neutral messages. Tool results travel in user messages on Anthropic's side
 * and in `tool` messages on ours; a user message with results and text becomes a `tool` message
 * followed by a `user` message, and the way back merges them again.
 */
import * as z from 'zod/mini';
import { CtxError } from '../errors.ts';
import { jsonValueSchema, parseWith } from '../messages/schema.ts';
import { contentText, resultContent } from '../messages/text.ts';
import type {
  ImagePart,
  JsonValue,
  Message,
  Part,
  ResultContentPart,
  TextPart,
  ToolResultPart,
} from '../messages/types.ts';
import { breakpointTargets, hasCacheHints, withBreakpoint } from './anthropic-cache.ts';
import { usageFromRecord } from './openai.ts';
import type { AnthropicMessageOut, AnthropicTextBlockOut } from './request-types.ts';
import { type SystemOption, withSystem } from './system.ts';

const json = z.record(z.string(), jsonValueSchema);
const textBlock = z.catchall(z.object({ type: z.literal('text'), text: z.string() }), jsonValueSchema);
const imageBlock = z.catchall(
  z.object({
    type: z.literal('image'),
    source: z.discriminatedUnion('type', [
      z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string().check(z.minLength(1)) }),
      z.object({ type: z.literal('url'), url: z.string().check(z.minLength(1)) }),
    ]),
  }),
  jsonValueSchema,
);
/** A block inside a `tool_result`'s content: text and images are read, anything else passes through. */
const resultContentBlock = z.catchall(z.object({ type: z.string().check(z.minLength(1)) }), jsonValueSchema);
// Keys beside the known fields (`cache_control`, a programmatic call's `caller`…) are kept in `extra`.
const thinkingBlock = z.catchall(
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.optional(z.string()) }),
  jsonValueSchema,
);
const redactedBlock = z.catchall(
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
  jsonValueSchema,
);
const toolUseBlock = z.catchall(
  z.object({
    type: z.literal('tool_use'),
    id: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: jsonValueSchema,
  }),
  jsonValueSchema,
);
const toolResultBlock = z.catchall(
  z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().check(z.minLength(1)),
    content: z.optional(z.union([z.string(), z.array(resultContentBlock)])),
    is_error: z.optional(z.boolean()),
  }),
  jsonValueSchema,
);
const KNOWN_BLOCKS = new Set(['text', 'image', 'thinking', 'redacted_thinking', 'tool_use', 'tool_result']);
const knownBlock = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  thinkingBlock,
  redactedBlock,
  toolUseBlock,
  toolResultBlock,
]);
/**
 * Any other block the API takes (`document`, `search_result`, `server_tool_use`, `web_search_tool_result`,
 * `container_upload`, …): carried as an opaque part and written back as it came.
 */
const otherBlock = z.catchall(
  z.object({
    type: z.string().check(
      z.minLength(1),
      z.refine((t) => !KNOWN_BLOCKS.has(t), 'a known block type with the wrong fields'),
    ),
  }),
  jsonValueSchema,
);
const block = z.union([knownBlock, otherBlock], {
  error: () => 'not a content block this type takes (check its fields)',
});

export const anthropicMessageSchema = z.object({
  role: z.enum(['user', 'assistant'], { error: () => 'role must be user or assistant' }),
  content: z.union([z.string(), z.array(block)]),
  usage: z.optional(json),
  model: z.optional(z.string()),
});

export const anthropicRequestSchema = z.object({
  system: z.optional(z.union([z.string(), z.array(textBlock)])),
  messages: z.array(z.unknown()),
});

/** `toAnthropic()`'s result: `system` and `messages` of the SDK's `MessageCreateParams`, structurally. */
export interface AnthropicRequest {
  system?: string | AnthropicTextBlockOut[];
  messages: AnthropicMessageOut[];
}

/** The request as it is assembled (blocks as JSON records), before it is typed for the caller. */
interface RequestDraft {
  system?: string | Array<Record<string, JsonValue>>;
  messages: Array<{ role: 'user' | 'assistant'; content: string | Array<Record<string, JsonValue>> }>;
}

function imageFrom(b: z.infer<typeof imageBlock>): ImagePart {
  const { type: _t, source, ...rest } = b;
  const part: ImagePart =
    source.type === 'url'
      ? { type: 'image', url: source.url }
      : { type: 'image', data: source.data, mediaType: source.media_type };
  if (Object.keys(rest).length > 0) part.extra = rest as Record<string, JsonValue>;
  return part;
}

/**
 * A `tool_result`'s content list as parts: text and image blocks as text and image parts (an image
 * counted as an image, not as its base64), any other block (`document`, `search_result`, an image by
 * file id…) as an opaque part written back as it came.
 */
function resultContentFrom(
  blocks: ReadonlyArray<z.infer<typeof resultContentBlock>>,
  path: PropertyKey[],
): ResultContentPart[] {
  return blocks.map((raw, k): ResultContentPart => {
    if (raw.type === 'text') return textFrom(parseWith(textBlock, raw, [...path, k]));
    const image = raw.type === 'image' ? imageBlock.safeParse(raw) : undefined;
    if (image?.success) return imageFrom(image.data);
    return { type: 'opaque', source: 'anthropic', kind: raw.type, value: raw as JsonValue };
  });
}

/** `part` with `rest` as its `extra` when there is any. */
function withExtra<P extends Part>(part: P, rest: Record<string, JsonValue>): P {
  return Object.keys(rest).length > 0 ? { ...part, extra: rest } : part;
}

function textFrom(b: z.infer<typeof textBlock>): TextPart {
  const { type: _t, text, ...rest } = b;
  const part: TextPart = { type: 'text', text };
  if (Object.keys(rest).length > 0) part.extra = rest as Record<string, JsonValue>;
  return part;
}

/** Converts an Anthropic request (`{ system?, messages }`) or a bare message list to neutral messages. */
export function fromAnthropic(
  input: unknown,
  options: {
    idPrefix?: string;
    /** Index of the first message in the whole list (error paths count from it). @default 0 */
    start?: number;
  } = {},
): Message[] {
  const prefix = options.idPrefix ?? 'm';
  const start = options.start ?? 0;
  const request: z.infer<typeof anthropicRequestSchema> = Array.isArray(input)
    ? { messages: input }
    : parseWith(anthropicRequestSchema, input, []);
  const out: Message[] = [];
  let n = 0;
  const nextId = () => `${prefix}${n++}`;
  if (request.system !== undefined) {
    const parts: Part[] =
      typeof request.system === 'string'
        ? [{ type: 'text', text: request.system }]
        : request.system.map(textFrom);
    out.push({ id: nextId(), role: 'system', parts });
  }
  request.messages.forEach((raw, at) => {
    const i = start + at;
    const m = parseWith(anthropicMessageSchema, raw, ['messages', i]);
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const results: Part[] = [];
    const parts: Part[] = [];
    for (const raw of blocks) {
      if (!KNOWN_BLOCKS.has(raw.type)) {
        parts.push({ type: 'opaque', source: 'anthropic', kind: raw.type, value: raw as JsonValue });
        continue;
      }
      const b = raw as z.infer<typeof knownBlock>;
      switch (b.type) {
        case 'text':
          parts.push(textFrom(b));
          break;
        case 'image':
          parts.push(imageFrom(b));
          break;
        case 'thinking': {
          const { type: _t, thinking, signature, ...rest } = b;
          parts.push(
            withExtra(
              signature
                ? { type: 'reasoning', text: thinking, signature }
                : { type: 'reasoning', text: thinking },
              rest,
            ),
          );
          break;
        }
        case 'redacted_thinking': {
          const { type: _t, data, ...rest } = b;
          parts.push(withExtra({ type: 'reasoning', text: '', signature: data, redacted: true }, rest));
          break;
        }
        case 'tool_use': {
          if (m.role !== 'assistant')
            throw new CtxError('invalid_input', 'tool_use blocks belong in assistant messages', {
              path: `messages[${i}].content`,
            });
          const { type: _t, id, name, input, ...rest } = b;
          parts.push(withExtra({ type: 'tool-call', id, name, args: input }, rest));
          break;
        }
        case 'tool_result': {
          if (m.role !== 'user')
            throw new CtxError('invalid_input', 'tool_result blocks belong in user messages', {
              path: `messages[${i}].content`,
            });
          const { type: _t, tool_use_id: callId, content, is_error, ...rest } = b;
          const part: ToolResultPart = { type: 'tool-result', callId, output: content ?? '' };
          if (Array.isArray(content)) {
            part.content = resultContentFrom(content, [
              'messages',
              i,
              'content',
              blocks.indexOf(raw),
              'content',
            ]);
            part.output = contentText(part.content);
          }
          if (is_error) part.isError = true;
          if (Object.keys(rest).length > 0) part.extra = rest as Record<string, JsonValue>;
          results.push(part);
          break;
        }
      }
    }
    if (results.length > 0)
      out.push({ id: nextId(), role: 'tool', parts: results, meta: { kind: 'tool_result' } });
    if (parts.length > 0 || results.length === 0) {
      const message: Message = { id: nextId(), role: m.role, parts };
      if (m.model) message.model = m.model;
      if (m.usage) {
        const usage = usageFromRecord(m.usage);
        if (usage) message.usage = usage;
      }
      out.push(message);
    }
  });
  return out;
}

function partToBlock(p: Part): Record<string, JsonValue> | undefined {
  switch (p.type) {
    case 'opaque':
      // Only Anthropic's own blocks go back; another dialect's pass-through item is left out.
      return p.source === 'anthropic' ? (p.value as Record<string, JsonValue>) : undefined;
    case 'text':
      return { type: 'text', text: p.text, ...(p.extra ?? {}) };
    case 'image': {
      // A data: URL (Chat Completions screenshots) goes as base64: Anthropic's url source takes http(s) only.
      const inline = p.data === undefined ? /^data:([^;,]+)?;base64,(.*)$/s.exec(p.url ?? '') : null;
      if (p.url !== undefined && p.data === undefined && !inline)
        return { type: 'image', source: { type: 'url', url: p.url }, ...p.extra };
      const source = inline
        ? { type: 'base64', media_type: inline[1] ?? p.mediaType ?? 'image/png', data: inline[2]! }
        : { type: 'base64', media_type: p.mediaType ?? 'image/png', data: p.data ?? '' };
      return { type: 'image', source, ...p.extra };
    }
    case 'reasoning':
      if (p.redacted) return { type: 'redacted_thinking', data: p.signature ?? '', ...p.extra };
      return p.signature !== undefined
        ? { type: 'thinking', thinking: p.text, signature: p.signature, ...p.extra }
        : { type: 'thinking', thinking: p.text, ...p.extra };
    case 'tool-call':
      return { type: 'tool_use', id: p.id, name: p.name, input: p.args, ...p.extra };
    case 'tool-result': {
      // The content list while it stands for `output` (blocks of other dialects left out), else the text.
      const parts = resultContent(p);
      const blocks = parts?.map(partToBlock).filter((b): b is Record<string, JsonValue> => b !== undefined);
      const b: Record<string, JsonValue> = {
        type: 'tool_result',
        tool_use_id: p.callId,
        content:
          blocks !== undefined && (blocks.length > 0 || parts!.length === 0)
            ? blocks
            : typeof p.output === 'string' || Array.isArray(p.output)
              ? p.output
              : JSON.stringify(p.output),
      };
      if (p.isError) b.is_error = true;
      return p.extra ? { ...b, ...p.extra } : b;
    }
  }
}

/**
 * Converts neutral messages to an Anthropic request. Leading system messages become `system`;
 * a system message later in the conversation becomes user text (Anthropic has no mid-conversation
 * system role). Tool messages and the user text right after them merge into one user message, and
 * consecutive messages of the same role merge, as the API requires alternation. Reasoning without a
 * signature is not sent: Anthropic rejects a `thinking` block without one.
 */
export interface ToAnthropicOptions extends SystemOption {
  /**
   * Prompt-cache breakpoints (`cache_control: { type: 'ephemeral' }`) on the parts that stay put
   * between calls: the end of the system prompt, ctxkit's summary, the end of the previous send and
   * the last message (anthropic-cache.ts). None when a part already carries a `cache_control` (the
   * caller's own hints pass untouched). `'messages'`: none on the system prompt (for a caller that
   * adds to it and marks its end itself); `false`: none. @default true
   */
  cacheControl?: boolean | 'messages';
}

export function toAnthropic(history: readonly Message[], options: ToAnthropicOptions = {}): AnthropicRequest {
  const messages = withSystem(history, options.system);
  const request: RequestDraft = { messages: [] };
  const mode = options.cacheControl ?? true;
  const mark = mode !== false && !hasCacheHints(messages);
  /** For each neutral message, the request message it went into (-1: the system prompt). */
  const owner: number[] = [];
  const systemBlocks: Array<Record<string, JsonValue>> = [];
  let i = 0;
  for (; i < messages.length && messages[i]!.role === 'system'; i++) {
    owner.push(-1);
    for (const p of messages[i]!.parts) {
      const b = partToBlock(p);
      if (b) systemBlocks.push(b);
    }
  }
  if (mark && mode === true && systemBlocks.length > 0)
    systemBlocks.splice(0, systemBlocks.length, ...withBreakpoint(systemBlocks));
  if (systemBlocks.length === 1 && Object.keys(systemBlocks[0]!).length === 2)
    request.system = systemBlocks[0]!.text as string;
  else if (systemBlocks.length > 0) request.system = systemBlocks;
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    // Anthropic takes back only its own thinking (signed or redacted); reasoning from other providers
    // (Chat Completions `reasoning`, Responses summaries, Gemini thoughts) has no signature and is left out.
    const blocks = m.parts
      .filter((p) => p.type !== 'reasoning' || p.signature !== undefined)
      .map(partToBlock)
      .filter((b): b is Record<string, JsonValue> => b !== undefined);
    if (m.role === 'system')
      for (const b of blocks) if (b.type === 'text') b.text = `[System] ${b.text as string}`;
    const last = request.messages[request.messages.length - 1];
    if (last && last.role === role) {
      const prev = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
      last.content = [...prev, ...blocks];
    } else request.messages.push({ role, content: blocks });
    owner.push(request.messages.length - 1);
  }
  if (mark)
    for (const t of breakpointTargets(messages, owner, request.messages.length)) {
      const msg = request.messages[t]!;
      const content = typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : msg.content;
      msg.content = withBreakpoint(content);
    }
  // Plain single-text messages read better as strings.
  for (const msg of request.messages) {
    const c = msg.content;
    if (Array.isArray(c) && c.length === 1 && c[0]!.type === 'text' && Object.keys(c[0]!).length === 2)
      msg.content = c[0]!.text as string;
  }
  // The blocks are built by partToBlock, one shape per part type, as AnthropicBlockOut lists them.
  return request as AnthropicRequest;
}
