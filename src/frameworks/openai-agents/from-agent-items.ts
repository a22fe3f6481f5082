/**
 * OpenAI Agents SDK `AgentInputItem` → ctxkit's neutral `Message`, lossless. Items are grouped as the
 * neutral model groups a turn: a user or system message item is one message, a `function_call_result`
 * one tool message, and the model's side (reasoning, assistant message, function and hosted calls)
 * one assistant message until the next result or user item. Every part keeps its item (camelCase
 * `providerData` included) in `provider.framework.item`, so an unchanged part comes back as the same
 * item. Reasoning items give the reasoning rules their id and encrypted content. A function output that
 * is more than text (images, files) is a multi-part result, its images counted as images. Items and
 * content entries the neutral model cannot express (hosted tool, computer, shell, apply_patch and tool
 * search calls and outputs, a hosted MCP approval, files, images by file id, unknown items) pass
 * through as opaque parts, kept as they came and counted by their JSON; a `compaction` item becomes a
 * pinned message of its own, which no stage removes. The SDK keeps function-tool approvals in its run
 * state, not in items: a rejected call reaches the model as a plain result.
 */
import type { AgentInputItem } from '@openai/agents';
import {
  CtxError,
  contentText,
  type JsonValue,
  type Message,
  type Part,
  type ResultContentPart,
} from '../../core/index.ts';
import { type Bag, isBag, json } from './json.ts';
import { remember } from './origins.ts';

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A neutral part for one content entry of a message item (`at` is its index, -1 for string content). */
function contentPart(c: Bag, item: Bag, at: number): Part {
  const fw = { item, at };
  if (c.type === 'input_text' || c.type === 'output_text')
    return { type: 'text', text: text(c.text), provider: { framework: fw } };
  if (c.type === 'input_image' && typeof c.image === 'string' && /^(https?:|data:)/.test(c.image))
    return { type: 'image', url: c.image, provider: { framework: fw } };
  if (c.type === 'refusal') return { type: 'text', text: text(c.refusal), provider: { framework: fw } };
  // A file, an image by file id, audio…: passed through as it came and counted by its JSON.
  return {
    type: 'opaque',
    source: 'openai-agents',
    kind: String(c.type),
    value: c,
    provider: { framework: fw },
  };
}

function parse(args: string): JsonValue {
  try {
    return JSON.parse(args) as JsonValue;
  } catch {
    return args;
  }
}

/** A content entry of a multi-part tool output as a result part: text, an image by URL or data, else opaque. */
function outputEntry(c: Bag): ResultContentPart {
  if ((c.type === 'text' || c.type === 'input_text') && typeof c.text === 'string')
    return { type: 'text', text: c.text };
  const image = c.type === 'image' || c.type === 'input_image' ? c.image : undefined;
  if (typeof image === 'string' && /^(https?:|data:)/.test(image)) return { type: 'image', url: image };
  if (isBag(image) && typeof image.url === 'string') return { type: 'image', url: image.url };
  if (isBag(image) && typeof image.data === 'string')
    return {
      type: 'image',
      data: image.data,
      ...(typeof image.mediaType === 'string' ? { mediaType: image.mediaType } : {}),
    };
  // A file, an image by file id: passed through, counted by its JSON.
  return { type: 'opaque', source: 'openai-agents', kind: String(c.type), value: c };
}

/** A function output's text, and its parts when it holds more than one text (images, files). */
function resultOutput(o: unknown): { output: string | JsonValue; content?: ResultContentPart[] } {
  if (typeof o === 'string') return { output: o };
  if (isBag(o) && o.type === 'text') return { output: text(o.text) };
  const entries = Array.isArray(o)
    ? o
    : isBag(o) && (o.type === 'image' || o.type === 'file')
      ? [o]
      : undefined;
  if (entries) {
    const content = entries.map((x) => outputEntry(isBag(x) ? x : {}));
    return { output: contentText(content), content };
  }
  return { output: json(o as JsonValue) };
}

/** The parts one model-side item gives. */
function modelParts(item: Bag): Part[] {
  const fw = { item };
  switch (item.type) {
    case 'reasoning': {
      const content = Array.isArray(item.content) ? item.content : [];
      const responses: Bag = { type: 'reasoning' };
      if (typeof item.id === 'string') responses.id = item.id;
      const pd = isBag(item.providerData) ? item.providerData : {};
      const enc = pd.encryptedContent ?? pd.encrypted_content;
      if (typeof enc === 'string') responses.encrypted_content = enc;
      const reasoning = content.map((c) => (isBag(c) ? text(c.text) : '')).join('\n\n');
      const verified = Object.keys(responses).length > 1 ? { responses: { item: responses } } : {};
      return [{ type: 'reasoning', text: reasoning, provider: { ...verified, framework: fw } }];
    }
    case 'function_call': {
      const args = text(item.arguments);
      return [
        {
          type: 'tool-call',
          id: text(item.callId),
          name: text(item.name),
          args: parse(args),
          argsText: args,
          provider: { framework: fw },
        },
      ];
    }
    case 'message':
    case undefined: {
      const content = item.content;
      if (typeof content === 'string')
        return [{ type: 'text', text: content, provider: { framework: { item, at: -1 } } }];
      const entries = Array.isArray(content) ? content : [];
      // An empty message still is an item: one empty text stands for it (`at: -2`).
      if (entries.length === 0)
        return [{ type: 'text', text: '', provider: { framework: { item, at: -2 } } }];
      return entries.map((c, i) => contentPart(isBag(c) ? c : {}, item, i));
    }
    default:
      // A hosted tool's call or result, a compaction item…: passed through as it came.
      return [{ type: 'opaque', source: 'openai-agents', kind: String(item.type), value: item }];
  }
}

/**
 * Whether a model-side item begins a new assistant message: a reasoning item after anything but
 * reasoning, or an assistant message item after a message or a call (the model writes its text first).
 */
function startsTurn(item: Bag, open: Message): boolean {
  const kinds = open.parts.map((p) =>
    isBag(p.provider?.framework?.item) ? p.provider.framework.item.type : p.type,
  );
  if (item.type === 'reasoning') return kinds.some((k) => k !== 'reasoning');
  if (item.type === 'message' || item.type === undefined) return kinds.some((k) => k !== 'reasoning');
  return false;
}

/**
 * Neutral messages for Agents SDK items; message `k` gets the id of its first item or `${idPrefix}${k}`.
 * Each neutral message is remembered with its items, which `toAgentInputItems` returns for it as long
 * as it is handed back unchanged.
 */
export function fromAgentInputItems(
  items: readonly AgentInputItem[],
  options: { idPrefix?: string } = {},
): Message[] {
  if (!Array.isArray(items))
    throw new CtxError('invalid_input', 'expected an array of AgentInputItem', { path: 'items' });
  const prefix = options.idPrefix ?? 'it';
  const out: Message[] = [];
  const sources: AgentInputItem[][] = [];
  let open: Message | undefined;
  items.forEach((original, i) => {
    if (typeof original !== 'object' || original === null || Array.isArray(original))
      throw new CtxError('invalid_input', 'expected an AgentInputItem object', { path: `items[${i}]` });
    const item = json(original as unknown as Bag);
    const id = typeof item.id === 'string' && item.id !== '' ? item.id : `${prefix}${out.length}`;
    const push = (m: Message) => {
      out.push(m);
      sources.push([original]);
    };
    const role = item.role;
    if ((item.type === 'message' || item.type === undefined) && (role === 'user' || role === 'system')) {
      open = undefined;
      push({ id, role, parts: modelParts(item) });
    } else if (item.type === 'function_call_result') {
      open = undefined;
      const { output, content } = resultOutput(item.output);
      push({
        id,
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: text(item.callId),
            name: text(item.name),
            output,
            ...(content ? { content } : {}),
            provider: { framework: { item } },
          },
        ],
      });
    } else if (item.type === 'compaction') {
      open = undefined;
      push({ id, role: 'user', parts: modelParts(item), meta: { kind: 'compaction', pinned: true } });
    } else {
      if (open && startsTurn(item, open)) open = undefined;
      if (!open) {
        open = { id, role: 'assistant', parts: [] };
        push(open);
      } else sources[sources.length - 1]!.push(original);
      open.parts.push(...modelParts(item));
    }
  });
  out.forEach((m, k) => {
    remember(m, sources[k]!);
  });
  return out;
}
