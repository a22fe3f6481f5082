/**
 * Neutral messages → OpenAI Responses API items: the writing half of `responses.ts` (see there for
 * how items map to messages). Provider data kept on the way in is written back unchanged; reasoning
 * and `encrypted_content` travel byte for byte.
 */
import { resultContent } from '../messages/text.ts';
import type { ImagePart, JsonValue, Message, OpaquePart, Part, TextPart } from '../messages/types.ts';
import { type Bag, bag } from './bag.ts';
import { type ResponsesItem, summaryText } from './responses.ts';
import { checkNeutral, type SystemOption } from './system.ts';

export interface ResponsesRequest {
  instructions?: string;
  input: ResponsesItem[];
}

/**
 * Converts neutral messages to a Responses request: the leading system message that came as
 * `instructions` goes back there, everything else becomes `input` items (see `toResponses`).
 */
export function toResponsesRequest(
  messages: readonly Message[],
  options: SystemOption = {},
): ResponsesRequest {
  const request: ResponsesRequest = { input: toResponses(messages) };
  const first = messages[0];
  const instructions =
    first && isInstructions(first) ? first.parts.map((p) => textOf(p)).join('') : undefined;
  // The system prompt given to `prepare` goes first in `instructions` (see system.ts).
  const parts = [options.system, instructions].filter((t): t is string => t !== undefined && t !== '');
  if (parts.length > 0) request.instructions = parts.join('\n\n');
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
  checkNeutral(messages);
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

function dataOf(p: { provider?: Message['provider'] }): Bag {
  return p.provider?.responses ?? {};
}

function messageItemOf(m: Message): ResponsesItem | undefined {
  const data = dataOf(m);
  const role = m.role === 'user' ? 'user' : m.meta?.sourceRole === 'developer' ? 'developer' : 'system';
  const parts = m.parts.filter(
    (p): p is TextPart | ImagePart | OpaquePart =>
      p.type === 'text' || p.type === 'image' || (p.type === 'opaque' && p.source === 'responses'),
  );
  if (parts.length === 0 && !data.item) return undefined;
  const head = data.item ? { ...bag(data.item), role } : { role };
  const only = parts[0];
  const asString =
    parts.length === 1 &&
    only?.type === 'text' &&
    (dataOf(only).contentString === true || (!data.item && !only.provider?.responses));
  return { ...head, content: asString ? only.text : parts.map((p) => contentOf(p, false)) };
}

function contentOf(p: TextPart | ImagePart | OpaquePart, assistant: boolean): JsonValue {
  if (p.type === 'opaque') return p.value;
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
        const call: Bag =
          item.type === 'custom_tool_call'
            ? {
                ...item,
                call_id: p.id,
                name: p.name,
                input: typeof p.args === 'string' ? p.args : JSON.stringify(p.args),
              }
            : {
                type: 'function_call',
                ...item,
                call_id: p.id,
                name: p.name,
                arguments: argumentsText(p.args, p.argsText),
              };
        out.push(Array.isArray(data.order) ? inOrder(call, data.order) : call);
        break;
      }
      case 'opaque': {
        if (p.source !== 'responses') break; // another dialect's item means nothing here
        // A content part inside an assistant message item, or an item of its own (hosted tool call…).
        if (data.item) {
          close();
          open = { item: { ...bag(data.item), role: 'assistant' }, content: [] };
        }
        if (data.item || data.inMessage === true) {
          open ??= { item: { role: 'assistant' }, content: [] };
          open.content.push(p.value);
        } else {
          close();
          out.push(bag(p.value));
        }
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
  // Content parts (text, images, this API's files) go out as a list while they stand for `output`.
  const content = resultContent(p)?.filter((c) => c.type !== 'opaque' || c.source === 'responses');
  const output: JsonValue =
    content !== undefined && content.length > 0
      ? content.map((c) => contentOf(c, false))
      : typeof p.output === 'string' || (fromHere && Array.isArray(p.output))
        ? p.output
        : JSON.stringify(p.output);
  return {
    type: custom.has(p.callId) ? 'custom_tool_call_output' : 'function_call_output',
    ...item,
    call_id: p.callId,
    output,
  };
}

/** `obj` with its keys in `order` (the item's own, kept on the way in), any others after them. */
function inOrder(obj: Bag, order: JsonValue[]): Bag {
  const out: Bag = {};
  for (const k of order) if (typeof k === 'string' && Object.hasOwn(obj, k)) out[k] = obj[k]!;
  return { ...out, ...obj };
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
