/**
 * OpenAI Responses API items ⇄ neutral messages, lossless on the round trip.
 *
 * - A user, system or developer `message` item is one neutral message; the item's own fields (`type`,
 *   `id`, `status`…) ride in the message's `provider.responses.item`.
 * - Consecutive assistant-side items (`reasoning`, `function_call`, `custom_tool_call`, assistant
 *   `message`) are one assistant message, one part per item (per content part for a message item), so a
 *   call travels with the reasoning it was produced with through every stage.
 * - Each `function_call_output` / `custom_tool_call_output` is a `tool` message.
 * - What has no neutral meaning (item ids, `status`, `annotations`, `encrypted_content`, the summary
 *   list…) is kept in the part's `provider.responses`; `encrypted_content` is never read or changed.
 *
 * A call that followed a reasoning item is tagged with that item's id (`provider.responses.reasoning`):
 * the Responses API rejects a `function_call` sent without it, and `checkInvariants` checks for it.
 */
import * as z from 'zod/mini';
import { CtxError, formatPath } from '../errors.ts';
import { jsonValueSchema, parseWith } from '../messages/schema.ts';
import type { ImagePart, JsonValue, Message, Part, ReasoningPart, TextPart } from '../messages/types.ts';
import { parseArgs } from './json-args.ts';

export type ResponsesItem = Record<string, JsonValue>;
type Bag = { [key: string]: JsonValue };

const rest = jsonValueSchema;
const contentPart = z.discriminatedUnion(
  'type',
  [
    z.catchall(z.object({ type: z.literal('input_text'), text: z.string() }), rest),
    z.catchall(z.object({ type: z.literal('output_text'), text: z.string() }), rest),
    z.catchall(z.object({ type: z.literal('refusal'), refusal: z.string() }), rest),
    z.catchall(
      z.object({
        type: z.literal('input_image'),
        image_url: z
          .string()
          .check(z.minLength(1, 'input_image needs an image_url (file_id images are not supported)')),
        detail: z.optional(z.enum(['auto', 'low', 'high'])),
      }),
      rest,
    ),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? 'unsupported content part (expected input_text, output_text, refusal or input_image)'
        : undefined,
  },
);
const messageItem = z.catchall(
  z.object({
    type: z.optional(z.literal('message')),
    role: z.enum(['user', 'assistant', 'system', 'developer'], {
      error: () => 'role must be one of user, assistant, system, developer',
    }),
    content: z.union([z.string(), z.array(contentPart)]),
  }),
  rest,
);
const callItem = z.catchall(
  z.object({
    type: z.literal('function_call'),
    call_id: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    arguments: z.string(),
  }),
  rest,
);
const customCallItem = z.catchall(
  z.object({
    type: z.literal('custom_tool_call'),
    call_id: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: z.string(),
  }),
  rest,
);
const outputItem = z.catchall(
  z.object({
    type: z.enum(['function_call_output', 'custom_tool_call_output']),
    call_id: z.string().check(z.minLength(1)),
    output: z.union([z.string(), z.array(jsonValueSchema)]),
  }),
  rest,
);
const reasoningItem = z.catchall(
  z.object({
    type: z.literal('reasoning'),
    id: z.string().check(z.minLength(1, 'a reasoning item needs its id')),
    summary: z.array(z.catchall(z.object({ type: z.literal('summary_text'), text: z.string() }), rest)),
    encrypted_content: z.optional(z.nullable(z.string())),
  }),
  rest,
);

const ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
];

export interface FromResponsesOptions {
  /** The request's `instructions`: a leading system message, given back by `toResponsesRequest`. */
  instructions?: string;
  /** Prefix of generated message ids (`m` → `m0`, `m1`, …). @default 'm' */
  idPrefix?: string;
  /** JSON path of the list in error messages. @default 'input' */
  path?: string;
}

/** The summary as one text: its parts joined by blank lines. */
function summaryText(summary: JsonValue | undefined): string {
  if (!Array.isArray(summary)) return '';
  return summary
    .map((s) => (s && typeof s === 'object' && !Array.isArray(s) && typeof s.text === 'string' ? s.text : ''))
    .join('\n\n');
}

function without(obj: Bag, ...keys: string[]): Bag {
  const out: Bag = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k)) out[k] = v;
  return out;
}

/**
 * Converts a Responses `input` (an item list, or a plain string as the API also takes) to neutral
 * messages. Throws `CtxError('invalid_input')` naming the JSON path of what is not understood.
 */
export function fromResponses(input: unknown, options: FromResponsesOptions = {}): Message[] {
  const base = options.path ?? 'input';
  const prefix = options.idPrefix ?? 'm';
  const items: unknown[] =
    typeof input === 'string' ? [{ role: 'user', content: input }] : (input as unknown[]);
  if (!Array.isArray(items))
    throw new CtxError('invalid_input', 'expected a string or an array of items', { path: base });
  const out: Message[] = [];
  let n = 0;
  const nextId = () => `${prefix}${n++}`;
  if (options.instructions !== undefined)
    out.push({
      id: nextId(),
      role: 'system',
      parts: [{ type: 'text', text: options.instructions }],
      provider: { responses: { instructions: true } },
    });
  let assistant: Message | undefined; // the open group of assistant-side items
  let reasoningId: string | undefined; // the last reasoning item of that group
  const assistantMessage = (): Message => {
    if (!assistant) {
      assistant = { id: nextId(), role: 'assistant', parts: [] };
      reasoningId = undefined;
      out.push(assistant);
    }
    return assistant;
  };
  items.forEach((raw, i) => {
    const path = [base, i];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw new CtxError('invalid_input', 'an item must be an object', { path: formatPath(path) });
    const type = (raw as { type?: unknown }).type;
    if (type === undefined || type === 'message') {
      const item = parseWith(messageItem, raw, path);
      const itemData = without(item as Bag, 'role', 'content');
      const parts = contentParts(item.content, item.role === 'assistant', [...path, 'content']);
      if (item.role === 'assistant') {
        const first = parts[0] ?? { type: 'text', text: '', provider: { responses: { empty: true } } };
        if (parts.length === 0) parts.push(first);
        first.provider = { responses: { ...first.provider?.responses, item: itemData } };
        assistantMessage().parts.push(...parts);
        return;
      }
      assistant = undefined;
      const message: Message = {
        id: nextId(),
        role: item.role === 'user' ? 'user' : 'system',
        parts,
        provider: { responses: { item: itemData } },
      };
      if (item.role === 'developer') message.meta = { sourceRole: 'developer' };
      out.push(message);
      return;
    }
    switch (type) {
      case 'reasoning': {
        const item = parseWith(reasoningItem, raw, path);
        const part: ReasoningPart = {
          type: 'reasoning',
          text: summaryText(item.summary as JsonValue),
          provider: { responses: { item: item as Bag } },
        };
        assistantMessage().parts.push(part);
        reasoningId = item.id;
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const custom = type === 'custom_tool_call';
        const item = custom ? parseWith(customCallItem, raw, path) : parseWith(callItem, raw, path);
        const data: Bag = {
          item: without(item as Bag, 'call_id', 'name', custom ? 'input' : 'arguments'),
        };
        const group = assistantMessage();
        if (reasoningId !== undefined) data.reasoning = reasoningId;
        let args: JsonValue;
        let argsText: string | undefined;
        if ('input' in item) args = item.input;
        else {
          args = parseArgs(item.arguments, formatPath([...path, 'arguments']));
          if (item.arguments !== JSON.stringify(args)) argsText = item.arguments;
        }
        const part: Part = { type: 'tool-call', id: item.call_id, name: item.name, args };
        if (argsText !== undefined) part.argsText = argsText;
        part.provider = { responses: data };
        group.parts.push(part);
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const item = parseWith(outputItem, raw, path);
        assistant = undefined;
        out.push({
          id: nextId(),
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: item.call_id,
              output: item.output as JsonValue,
              provider: { responses: { item: without(item as Bag, 'call_id', 'output') } },
            },
          ],
          meta: { kind: 'tool_result' },
        });
        return;
      }
      default:
        throw new CtxError(
          'invalid_input',
          `unsupported item type ${JSON.stringify(type)} (expected one of ${ITEM_TYPES.join(', ')})`,
          { path: formatPath([...path, 'type']) },
        );
    }
  });
  return out;
}

function contentParts(
  content: z.infer<typeof messageItem>['content'],
  assistant: boolean,
  path: PropertyKey[],
): Part[] {
  if (typeof content === 'string')
    return [{ type: 'text', text: content, provider: { responses: { contentString: true } } }];
  return content.map((c, ci): Part => {
    if (c.type === 'input_text' || c.type === 'output_text')
      return { type: 'text', text: c.text, provider: { responses: { part: without(c as Bag, 'text') } } };
    if (c.type === 'refusal')
      return {
        type: 'text',
        text: c.refusal,
        provider: { responses: { part: without(c as Bag, 'refusal') } },
      };
    if (assistant)
      throw new CtxError('invalid_input', 'input_image belongs in a user message', {
        path: formatPath([...path, ci]),
      });
    const img: ImagePart = { type: 'image', url: c.image_url };
    if (c.detail) img.detail = c.detail;
    img.provider = { responses: { part: without(c as Bag, 'image_url', 'detail') } };
    return img;
  });
}

export interface ResponsesRequest {
  instructions?: string;
  input: ResponsesItem[];
}

/**
 * Converts neutral messages to a Responses request: the leading system message that came as
 * `instructions` goes back there, everything else becomes `input` items (see `toResponses`).
 */
export function toResponsesRequest(messages: readonly Message[]): ResponsesRequest {
  const request: ResponsesRequest = { input: toResponses(messages) };
  const first = messages[0];
  if (first && isInstructions(first)) request.instructions = first.parts.map((p) => textOf(p)).join('');
  return request;
}

function isInstructions(m: Message): boolean {
  return m.role === 'system' && m.provider?.responses?.instructions === true;
}

function textOf(p: Part): string {
  return p.type === 'text' || p.type === 'reasoning' ? p.text : '';
}

/**
 * Converts neutral messages to Responses `input` items. Items that came from `fromResponses` are
 * rebuilt exactly (ids, status, annotations, encrypted reasoning); parts from elsewhere get the plain
 * forms (`{ role, content }` messages, `function_call`, `function_call_output`). The system message
 * that came as `instructions` is left out (`toResponsesRequest` puts it back). Reasoning that did not
 * come from the Responses API (it has no item id) is not sent: the API takes only its own reasoning
 * items. Invisible messages are the caller's business.
 */
export function toResponses(messages: readonly Message[]): ResponsesItem[] {
  const custom = new Set<string>();
  for (const m of messages)
    for (const p of m.parts)
      if (p.type === 'tool-call' && dataOf(p).item && bag(dataOf(p).item).type === 'custom_tool_call')
        custom.add(p.id);
  const out: ResponsesItem[] = [];
  for (const m of messages) {
    if (isInstructions(m)) continue;
    switch (m.role) {
      case 'system':
      case 'user': {
        const item = messageItemOf(m);
        if (item) out.push(item);
        break;
      }
      case 'tool':
        for (const p of m.parts) if (p.type === 'tool-result') out.push(outputItemOf(p, custom));
        break;
      case 'assistant':
        assistantItems(m, out);
        break;
    }
  }
  return out;
}

function bag(v: JsonValue | undefined): Bag {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

function dataOf(p: { provider?: Message['provider'] }): Bag {
  return p.provider?.responses ?? {};
}

function messageItemOf(m: Message): ResponsesItem | undefined {
  const data = dataOf(m);
  const role = m.role === 'user' ? 'user' : m.meta?.sourceRole === 'developer' ? 'developer' : 'system';
  const parts = m.parts.filter((p) => p.type === 'text' || p.type === 'image');
  if (parts.length === 0 && !data.item) return undefined;
  const head = data.item ? { ...bag(data.item), role } : { role };
  const only = parts[0];
  const asString =
    parts.length === 1 &&
    only?.type === 'text' &&
    (dataOf(only).contentString === true || (!data.item && !only.provider?.responses));
  return { ...head, content: asString ? only.text : parts.map((p) => contentOf(p, false)) };
}

function contentOf(p: TextPart | ImagePart, assistant: boolean): JsonValue {
  const data = bag(dataOf(p).part);
  if (p.type === 'image') {
    const url = p.url ?? `data:${p.mediaType ?? 'image/png'};base64,${p.data}`;
    const out: Bag = { type: 'input_image', ...data, image_url: url };
    if (p.detail) out.detail = p.detail;
    else if (!p.provider?.responses) out.detail = 'auto';
    return out;
  }
  if (data.type === 'refusal') return { ...data, refusal: p.text };
  if (data.type !== undefined) return { ...data, text: p.text };
  return assistant
    ? { type: 'output_text', text: p.text, annotations: [] }
    : { type: 'input_text', text: p.text };
}

function assistantItems(m: Message, out: ResponsesItem[]): void {
  let open: { item: Bag; content: JsonValue[] } | undefined; // the message item being filled
  const close = () => {
    if (open) out.push({ ...open.item, content: open.content });
    open = undefined;
  };
  for (const p of m.parts) {
    const data = dataOf(p);
    switch (p.type) {
      case 'text': {
        if (data.item) {
          close();
          if (data.contentString === true) {
            out.push({ ...bag(data.item), role: 'assistant', content: p.text });
            break;
          }
          open = { item: { ...bag(data.item), role: 'assistant' }, content: [] };
          if (data.empty === true) break;
        } else if (!open) open = { item: { role: 'assistant' }, content: [] };
        open!.content.push(contentOf(p, true));
        break;
      }
      case 'reasoning': {
        close();
        const item = bag(data.item);
        if (typeof item.id !== 'string') break; // not a Responses reasoning item: cannot be sent
        const copy: Bag = { ...item };
        if (summaryText(item.summary) !== p.text)
          copy.summary = p.text === '' ? [] : [{ type: 'summary_text', text: p.text }];
        out.push(copy);
        break;
      }
      case 'tool-call': {
        close();
        const item = bag(data.item);
        if (item.type === 'custom_tool_call')
          out.push({
            ...item,
            call_id: p.id,
            name: p.name,
            input: typeof p.args === 'string' ? p.args : JSON.stringify(p.args),
          });
        else
          out.push({
            type: 'function_call',
            ...item,
            call_id: p.id,
            name: p.name,
            arguments: argumentsText(p.args, p.argsText),
          });
        break;
      }
      default:
        break; // images and results have no place in an assistant turn
    }
  }
  close();
}

function outputItemOf(p: Extract<Part, { type: 'tool-result' }>, custom: Set<string>): ResponsesItem {
  const item = bag(dataOf(p).item);
  const fromHere = item.type !== undefined;
  const output: JsonValue =
    typeof p.output === 'string' || (fromHere && Array.isArray(p.output))
      ? p.output
      : JSON.stringify(p.output);
  return {
    type: custom.has(p.callId) ? 'custom_tool_call_output' : 'function_call_output',
    ...item,
    call_id: p.callId,
    output,
  };
}

/** The provider's own serialisation while it still matches the arguments, else canonical JSON. */
function argumentsText(args: JsonValue, argsText: string | undefined): string {
  const canonical = JSON.stringify(args);
  if (argsText === undefined) return canonical;
  try {
    return JSON.stringify(JSON.parse(argsText)) === canonical ? argsText : canonical;
  } catch {
    return canonical;
  }
}
