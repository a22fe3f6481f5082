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
import { contentText } from '../messages/text.ts';
import type {
  ImagePart,
  JsonValue,
  Message,
  Part,
  ReasoningPart,
  ResultContentPart,
  ToolResultPart,
} from '../messages/types.ts';
import { type Bag, without } from './bag.ts';
import { parseArgs } from './json-args.ts';

export type ResponsesItem = Record<string, JsonValue>;

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
        image_url: z.string().check(z.minLength(1)),
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
/** Any other content part with a type (`input_file`, `input_audio`, an image by `file_id`…): passed through. */
const anyContentPart = z.catchall(z.object({ type: z.string().check(z.minLength(1)) }), rest);

/** Whether an output list entry is a content part (an object with a `type`). */
function isTypedPart(v: JsonValue): v is { type: string; [key: string]: JsonValue } {
  return (
    v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.type === 'string' && v.type !== ''
  );
}

/** Whether a content part has a neutral kind (else it passes through as an opaque part). */
function isNeutralContent(c: { [key: string]: unknown }): boolean {
  if (c.type === 'input_image') return typeof c.image_url === 'string' && c.image_url !== '';
  return c.type === 'input_text' || c.type === 'output_text' || c.type === 'refusal';
}
const messageItem = z.catchall(
  z.object({
    type: z.optional(z.literal('message')),
    role: z.enum(['user', 'assistant', 'system', 'developer'], {
      error: () => 'role must be one of user, assistant, system, developer',
    }),
    content: z.union([z.string(), z.array(anyContentPart)]),
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
export function summaryText(summary: JsonValue | undefined): string {
  if (!Array.isArray(summary)) return '';
  return summary
    .map((s) => (s && typeof s === 'object' && !Array.isArray(s) && typeof s.text === 'string' ? s.text : ''))
    .join('\n\n');
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
      const itemData = without(raw as Bag, 'role', 'content');
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
          provider: { responses: { item: raw as Bag } }, // as it came (key order kept)
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
          item: without(raw as Bag, 'call_id', 'name', custom ? 'input' : 'arguments'),
        };
        // The item's key order, when the writer's (type, the rest, call_id, name, arguments) is not it.
        const keys = Object.keys(raw as Bag);
        const written = [
          ...(custom ? [] : ['type']),
          ...Object.keys(data.item as Bag).filter((k) => custom || k !== 'type'),
          ...['call_id', 'name', custom ? 'input' : 'arguments'],
        ];
        if (keys.join() !== written.join()) data.order = keys;
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
        const result: ToolResultPart = {
          type: 'tool-result',
          callId: item.call_id,
          output: item.output as JsonValue,
          provider: { responses: { item: without(raw as Bag, 'call_id', 'output') } },
        };
        // A list of content parts (input_text, input_image, input_file): read as parts, so that an
        // image counts as an image; written back as the same list while `output` is their text.
        if (Array.isArray(item.output) && item.output.length > 0 && item.output.every(isTypedPart)) {
          // contentParts gives text, image or opaque parts only for a user-side list.
          result.content = contentParts(item.output, false, [...path, 'output']) as ResultContentPart[];
          result.output = contentText(result.content);
        }
        out.push({ id: nextId(), role: 'tool', parts: [result], meta: { kind: 'tool_result' } });
        return;
      }
      default:
        if (typeof type !== 'string' || type === '')
          throw new CtxError(
            'invalid_input',
            `an item type must be a non-empty string (one of ${ITEM_TYPES.join(', ')}, or another item the API takes)`,
            { path: formatPath([...path, 'type']) },
          );
        // A hosted tool's call or output, a compaction item, an item reference…: kept in the open
        // assistant group as it came, so that a call and its output travel together through stages.
        assistantMessage().parts.push({ type: 'opaque', source: 'responses', kind: type, value: raw as Bag });
        return;
    }
  });
  return out;
}

function contentParts(
  content: string | ReadonlyArray<{ type: string; [key: string]: JsonValue }>,
  assistant: boolean,
  path: PropertyKey[],
): Part[] {
  if (typeof content === 'string')
    return [{ type: 'text', text: content, provider: { responses: { contentString: true } } }];
  return content.map((raw, ci): Part => {
    if (!isNeutralContent(raw))
      return {
        type: 'opaque',
        source: 'responses',
        kind: raw.type,
        value: raw as Bag,
        provider: { responses: { inMessage: true } },
      };
    const c = parseWith(contentPart, raw, [...path, ci]);
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
