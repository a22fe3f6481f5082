/**
 * OpenAI Chat Completions ⇄ neutral messages. Also reads the normalized trajectory format of
 * `shared/data/trajectories` (OpenAI-shaped, plus `reasoning`, `usage` and `meta` per message).
 * The message schema is in `openai-schema.ts`, the usage record in `usage.ts`.
 */
import { CtxError, formatPath } from '../errors.ts';
import { parseWith } from '../messages/schema.ts';
import { contentText, resultContent } from '../messages/text.ts';
import type {
  ImagePart,
  JsonValue,
  Message,
  MessageMeta,
  OpaquePart,
  Part,
  ResultContentPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  Usage,
} from '../messages/types.ts';
import { type Bag, without } from './bag.ts';
import { parseArgs } from './json-args.ts';
import {
  type ContentPart,
  imageContent,
  openAIMessageSchema,
  refusalContent,
  textContent,
} from './openai-schema.ts';
import type { OpenAIMessageOut } from './request-types.ts';
import { type SystemOption, withSystem } from './system.ts';
import { usageFromRecord } from './usage.ts';

export { type OpenAIMessage, openAIMessageSchema } from './openai-schema.ts';
export { usageFromRecord };

export interface FromOptions {
  /** Prefix of generated message ids (`m` → `m0`, `m1`, …). @default 'm' */
  idPrefix?: string;
  /** JSON path of the list in error messages. @default 'messages' */
  path?: string;
  /**
   * Index of `input[0]` in the whole list, when `input` is the rest of a list whose start was
   * converted before: ids and error paths count from it. @default 0
   */
  start?: number;
}

/** The keys of `c` but `keys`; `undefined` when there are none. */
function rest(c: Bag, ...keys: string[]): Bag | undefined {
  const out = without(c, ...keys);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One content part as a neutral part (see `contentPart`); `path` names it in errors. */
function readContent(c: ContentPart, path: PropertyKey[]): TextPart | ImagePart | OpaquePart {
  const raw = c as Bag;
  let part: TextPart | ImagePart;
  if (c.type === 'text') {
    const t = parseWith(textContent, c, path);
    part = { type: 'text', text: t.text };
  } else if (c.type === 'refusal') {
    const r = parseWith(refusalContent, c, path);
    part = { type: 'text', text: r.refusal };
  } else if (c.type === 'image_url' && (c.image_url as { url?: unknown } | undefined)?.url !== undefined) {
    const i = parseWith(imageContent, c, path);
    const img: ImagePart = { type: 'image', url: i.image_url.url };
    if (i.image_url.detail) img.detail = i.image_url.detail;
    part = img;
  } else return { type: 'opaque', source: 'openai', kind: c.type, value: raw };
  const extra = rest(
    raw,
    'type',
    c.type === 'refusal' ? 'refusal' : c.type === 'text' ? 'text' : 'image_url',
  );
  if (extra) part.extra = extra;
  return part;
}

/** Whether a content array is plain text parts only (read as one text, as before). */
function plainText(content: readonly ContentPart[]): boolean {
  return content.every(
    (c) => c.type === 'text' && typeof c.text === 'string' && rest(c as Bag, 'type', 'text') === undefined,
  );
}

function textOf(content: string | readonly ContentPart[]): string {
  return typeof content === 'string' ? content : content.map((c) => c.text as string).join('');
}

function partsOf(content: string | readonly ContentPart[], path: PropertyKey[]): Part[] {
  if (typeof content === 'string' || plainText(content)) return [{ type: 'text', text: textOf(content) }];
  return content.map((c, ci) => readContent(c, [...path, ci]));
}

/** Converts OpenAI Chat Completions messages (or trajectory messages) to neutral messages. */
export function fromOpenAI(input: unknown, options: FromOptions = {}): Message[] {
  const base = options.path ?? 'messages';
  if (!Array.isArray(input))
    throw new CtxError('invalid_input', 'expected an array of messages', { path: base });
  const prefix = options.idPrefix ?? 'm';
  const start = options.start ?? 0;
  return input.map((raw, at): Message => {
    const i = start + at;
    const m = parseWith(openAIMessageSchema, raw, [base, i]);
    const meta: MessageMeta = { ...(m.meta ?? {}) };
    let parts: Part[];
    let role: Message['role'];
    switch (m.role) {
      case 'system':
      case 'developer':
        role = 'system';
        parts = partsOf(m.content, [base, i, 'content']);
        if (m.role === 'developer') meta.sourceRole = 'developer';
        break;
      case 'user':
        role = 'user';
        parts =
          typeof m.content === 'string'
            ? [{ type: 'text', text: m.content }]
            : m.content.map((c, ci) => readContent(c, [base, i, 'content', ci]));
        break;
      case 'assistant': {
        role = 'assistant';
        parts = [];
        const reasoning = m.reasoning ?? m.reasoning_content;
        if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
        if (typeof m.content === 'string') {
          if (m.content !== '') parts.push({ type: 'text', text: m.content });
        } else if (Array.isArray(m.content)) {
          m.content.forEach((c, ci) => {
            parts.push(readContent(c, [base, i, 'content', ci]));
          });
        }
        if (m.refusal) meta.refusal = m.refusal;
        m.tool_calls?.forEach((tc, ti) => {
          let part: ToolCallPart;
          const openai: Bag = {};
          const call = rest(tc as Bag, 'id', 'type', tc.type === 'custom' ? 'custom' : 'function');
          if (call) openai.call = call;
          if (tc.type === 'custom') {
            // Free-form input: the call's args are the input text as it came.
            part = { type: 'tool-call', id: tc.id, name: tc.custom.name, args: tc.custom.input };
            openai.custom = true;
          } else {
            const path = formatPath([base, i, 'tool_calls', ti, 'function', 'arguments']);
            const args = parseArgs(tc.function.arguments, path);
            part = { type: 'tool-call', id: tc.id, name: tc.function.name, args };
            if (tc.function.arguments !== JSON.stringify(args)) part.argsText = tc.function.arguments;
          }
          if (Object.keys(openai).length > 0) part.provider = { openai };
          parts.push(part);
        });
        break;
      }
      case 'tool': {
        role = 'tool';
        const isError = meta.is_error === true;
        delete meta.is_error;
        const part: ToolResultPart = { type: 'tool-result', callId: m.tool_call_id, output: '' };
        if (typeof m.content === 'string' || plainText(m.content)) part.output = textOf(m.content);
        else {
          const content = m.content.map(
            (c, ci) => readContent(c, [base, i, 'content', ci]) as ResultContentPart,
          );
          part.content = content;
          part.output = contentText(content);
        }
        if (m.name) part.name = m.name;
        if (isError) part.isError = true;
        parts = [part];
        meta.kind ??= 'tool_result';
        break;
      }
    }
    const message: Message = { id: `${prefix}${i}`, role, parts };
    if (Object.keys(meta).length > 0) message.meta = meta;
    if (m.name && m.role !== 'tool') message.name = m.name;
    if (m.model) message.model = m.model;
    if (m.usage) {
      const usage = usageFromRecord(m.usage);
      if (usage) message.usage = usage;
    }
    return message;
  });
}

export interface ToOpenAIOptions extends SystemOption {
  /** Emit `reasoning`, `usage` and `meta` as the trajectory format does. @default false */
  trajectory?: boolean;
}

/** Converts neutral messages to OpenAI Chat Completions messages. Invisible messages are the caller's business. */
export function toOpenAI(messages: readonly Message[], options: ToOpenAIOptions = {}): OpenAIMessageOut[] {
  const out: Array<Record<string, JsonValue>> = [];
  for (const m of withSystem(messages, options.system)) {
    const meta: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(m.meta ?? {})) if (v !== undefined) meta[k] = v;
    if (m.role === 'tool') {
      // One OpenAI tool message per result part.
      for (const p of m.parts) {
        if (p.type !== 'tool-result') continue;
        const content = resultContent(p);
        const msg: Record<string, JsonValue> = {
          role: 'tool',
          tool_call_id: p.callId,
          content: content
            ? content.flatMap(contentOut)
            : typeof p.output === 'string'
              ? p.output
              : JSON.stringify(p.output),
        };
        if (p.name) msg.name = p.name;
        if (options.trajectory) {
          const tmeta = { ...meta };
          if (tmeta.kind === 'tool_result') delete tmeta.kind;
          if (p.isError) tmeta.is_error = true;
          if (Object.keys(tmeta).length > 0) msg.meta = tmeta;
        }
        out.push(msg);
      }
      continue;
    }
    const texts = m.parts.filter((p) => p.type === 'text');
    const msg: Record<string, JsonValue> = {
      role: m.role === 'system' && meta.sourceRole === 'developer' ? 'developer' : m.role,
    };
    delete meta.sourceRole;
    const asArray = m.parts.some(
      (p) => (p.type === 'opaque' && p.source === 'openai') || (p.type !== 'opaque' && p.extra !== undefined),
    );
    if (asArray || (m.role === 'user' && m.parts.some((p) => p.type === 'image'))) {
      msg.content = m.parts.flatMap((p) =>
        p.type === 'text' || p.type === 'image' || p.type === 'opaque' ? contentOut(p) : [],
      );
    }
    if (m.role === 'assistant') {
      const calls = m.parts.filter((p) => p.type === 'tool-call');
      if (!asArray) msg.content = texts.length === 0 ? null : texts.map((t) => t.text).join('');
      if (calls.length > 0)
        msg.tool_calls = calls.map((c) => {
          const openai = c.provider?.openai;
          const extra =
            openai?.call && typeof openai.call === 'object' && !Array.isArray(openai.call) ? openai.call : {};
          if (openai?.custom === true) {
            const input = typeof c.args === 'string' ? c.args : JSON.stringify(c.args);
            return { id: c.id, type: 'custom', custom: { name: c.name, input }, ...extra };
          }
          return {
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: argumentsText(c) },
            ...extra,
          };
        });
      const reasoning = m.parts.find((p) => p.type === 'reasoning');
      if (options.trajectory && reasoning) msg.reasoning = reasoning.text;
      if (typeof meta.refusal === 'string') {
        msg.refusal = meta.refusal;
        delete meta.refusal;
      }
    } else if (msg.content === undefined) {
      msg.content = texts.length === 1 ? texts[0]!.text : texts.map((t) => ({ type: 'text', text: t.text }));
    }
    if (m.name) msg.name = m.name;
    if (options.trajectory) {
      if (m.model) msg.model = m.model;
      if (Object.keys(meta).length > 0) msg.meta = meta;
      if (m.usage) msg.usage = usageToRecord(m.usage);
    }
    out.push(msg);
  }
  // Each message is built above in one of the shapes OpenAIMessageOut lists (role by role).
  return out as unknown as OpenAIMessageOut[];
}

/** A content part as Chat Completions takes it (extras written back); another dialect's opaque part is left out. */
function contentOut(p: ResultContentPart): JsonValue[] {
  if (p.type === 'opaque') return p.source === 'openai' ? [p.value] : [];
  if (p.type === 'text') return [{ type: 'text', text: p.text, ...p.extra }];
  const url = p.url ?? `data:${p.mediaType ?? 'image/png'};base64,${p.data}`;
  return [{ type: 'image_url', image_url: p.detail ? { url, detail: p.detail } : { url }, ...p.extra }];
}

/** The provider's own serialisation while it still matches the arguments, else canonical JSON. */
function argumentsText(call: ToolCallPart): string {
  const canonical = JSON.stringify(call.args);
  if (call.argsText === undefined) return canonical;
  try {
    return JSON.stringify(JSON.parse(call.argsText)) === canonical ? call.argsText : canonical;
  } catch {
    return canonical;
  }
}

/** OpenAI's own form: the prompt counts every input token, the cache's reads and writes among them. */
function usageToRecord(u: Usage): Record<string, JsonValue> {
  const read = u.cacheReadTokens;
  const write = u.cacheWriteTokens;
  const r: Record<string, JsonValue> = {
    prompt_tokens: u.inputTokens + (read ?? 0) + (write ?? 0),
    completion_tokens: u.outputTokens,
  };
  if (u.totalTokens !== undefined) r.total_tokens = u.totalTokens;
  if (u.reasoningTokens !== undefined) r.reasoning_tokens = u.reasoningTokens;
  if (read !== undefined || write !== undefined) {
    const details: Record<string, JsonValue> = {};
    if (read !== undefined) details.cached_tokens = read;
    if (write !== undefined) details.cache_write_tokens = write;
    r.prompt_tokens_details = details;
  }
  return r;
}
