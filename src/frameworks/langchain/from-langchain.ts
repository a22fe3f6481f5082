/**
 * LangChain `BaseMessage` → ctxkit's neutral `Message`, lossless. Content blocks become parts (see
 * blocks.ts); Anthropic `thinking`/`redacted_thinking` keep their signatures where the reasoning rules
 * read them, and an OpenAI Responses reasoning item in `additional_kwargs.reasoning` becomes a reasoning
 * part carrying its id and `encrypted_content`. Everything else the message held (`additional_kwargs`,
 * `response_metadata`, `usage_metadata`, ToolMessage `status`/`artifact`/multi-part content, raw tool
 * calls) rides in `provider.framework.lc` and comes back through `toLangChainMessages`.
 */
import type { BaseMessage } from '@langchain/core/messages';
import {
  CtxError,
  contentText,
  type JsonValue,
  type Message,
  type Part,
  type ResultContentPart,
  type Role,
  type ToolResultPart,
  type Usage,
} from '../../core/index.ts';
import { type Bag, blockToPart, isBag, json, same } from './blocks.ts';
import { remember } from './origins.ts';

const ROLES: Record<string, Role> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' };

/** The key under `response_metadata` where ctxkit keeps what LangChain has no field for. */
export const STASH_KEY = 'ctxkit';

function usageOf(u: unknown): Usage | undefined {
  if (!isBag(u) || typeof u.input_tokens !== 'number' || typeof u.output_tokens !== 'number')
    return undefined;
  const num = (b: unknown, k: string) =>
    isBag(b) && typeof b[k] === 'number' ? (b[k] as number) : undefined;
  const read = num(u.input_token_details, 'cache_read');
  const write = num(u.input_token_details, 'cache_creation');
  const reasoning = num(u.output_token_details, 'reasoning');
  return {
    // LangChain counts cache reads and writes inside input_tokens; the neutral model apart.
    inputTokens: Math.max(0, u.input_tokens - (read ?? 0) - (write ?? 0)),
    outputTokens: u.output_tokens,
    ...(typeof u.total_tokens === 'number' ? { totalTokens: u.total_tokens } : {}),
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}

/** An OpenAI Responses reasoning item (`additional_kwargs.reasoning`) as a reasoning part. */
function kwargsReasoning(r: Bag): Part {
  const summary = Array.isArray(r.summary) ? r.summary : [];
  const text = summary.map((s) => (isBag(s) && typeof s.text === 'string' ? s.text : '')).join('\n\n');
  const item: Bag = { type: 'reasoning' };
  if (typeof r.id === 'string') item.id = r.id;
  if (typeof r.encrypted_content === 'string') item.encrypted_content = r.encrypted_content;
  return { type: 'reasoning', text, provider: { responses: { item }, framework: { reasoning: json(r) } } };
}

function toolCallParts(calls: unknown, parts: Part[]): void {
  if (!Array.isArray(calls)) return;
  for (const tc of calls as Bag[]) {
    const id = typeof tc.id === 'string' ? tc.id : '';
    const name = typeof tc.name === 'string' ? tc.name : '';
    const args = (tc.args ?? {}) as JsonValue;
    const canonical = same(tc, { id, name, args, type: 'tool_call' });
    const at = parts.findIndex(
      (p) => p.type === 'tool-call' && p.id === id && p.provider?.framework?.inContent,
    );
    const existing = parts[at];
    if (existing) {
      // The call is also an Anthropic `tool_use` block in the content: one part for both.
      if (!canonical) existing.provider = { framework: { ...existing.provider?.framework, call: json(tc) } };
      continue;
    }
    parts.push({
      type: 'tool-call',
      id,
      name,
      args: json(args),
      ...(canonical ? {} : { provider: { framework: { call: json(tc) } } }),
    });
  }
}

/**
 * A ToolMessage as a result. Multi-part content becomes the result's `content` parts (text, images,
 * files and other blocks as opaque parts), so that an image counts as an image; `output` is its text.
 */
function toolResult(m: BaseMessage & Bag): Part {
  const part: ToolResultPart = {
    type: 'tool-result',
    callId: String(m.tool_call_id ?? ''),
    ...(typeof m.name === 'string' ? { name: m.name } : {}),
    output: '',
    ...(m.status === 'error' ? { isError: true } : {}),
  };
  if (Array.isArray(m.content)) {
    part.content = (m.content as unknown[]).map((b): ResultContentPart => {
      const p = blockToPart(b);
      if (p.type === 'text' || p.type === 'image' || p.type === 'opaque') return p;
      // A thinking or tool_use block has no place in a result: carried as it came.
      return { type: 'opaque', source: 'langchain', kind: String((b as Bag).type), value: json(b as Bag) };
    });
    part.output = contentText(part.content);
  } else part.output = String(m.content);
  return part;
}

function applyStash(n: Message, stash: Bag): void {
  const target = n as unknown as Bag;
  for (const key of ['meta', 'usage', 'model', 'name', 'provider'] as const) {
    if (!(key in stash)) continue;
    if (stash[key] === null) delete target[key];
    else target[key] = json(stash[key]) as JsonValue;
  }
  if (Array.isArray(stash.parts)) n.parts = json(stash.parts) as unknown as Part[];
  else if (isBag(stash.parts))
    for (const [i, diff] of Object.entries(stash.parts)) {
      const p = n.parts[Number(i)] as unknown as Bag | undefined;
      if (!p || !isBag(diff)) continue;
      for (const [k, v] of Object.entries(diff)) {
        if (v === null) delete p[k];
        else p[k] = json(v);
      }
    }
}

/** One neutral message for one LangChain message (`id` when the message has none). */
export function fromLangChainMessage(m: BaseMessage, id: string, index = 0): Message {
  const any = m as BaseMessage & Bag;
  const role = ROLES[String(any.type)];
  if (role === undefined)
    throw new CtxError('invalid_input', `unsupported LangChain message type '${String(any.type)}'`, {
      path: `messages[${index}].type`,
    });
  const meta = isBag(any.response_metadata) ? any.response_metadata : {};
  const { [STASH_KEY]: stash, ...responseMetadata } = meta;
  const kwargs = isBag(any.additional_kwargs) ? any.additional_kwargs : {};
  const { reasoning, ...additionalKwargs } = kwargs;
  const lc: Bag = {};
  if (typeof any.id !== 'string') lc.noId = true;
  if (Object.keys(additionalKwargs).length > 0) lc.additional_kwargs = json(additionalKwargs);
  if (Object.keys(responseMetadata).length > 0) lc.response_metadata = json(responseMetadata);
  if (any.usage_metadata !== undefined) lc.usage_metadata = json(any.usage_metadata);
  if (Array.isArray(any.invalid_tool_calls) && any.invalid_tool_calls.length > 0)
    lc.invalid_tool_calls = json(any.invalid_tool_calls);
  if (any.artifact !== undefined) lc.artifact = json(any.artifact);
  if (any.status !== undefined) lc.status = any.status;

  let parts: Part[] = [];
  if (role === 'tool') parts = [toolResult(any)];
  else {
    if (typeof any.content === 'string') {
      lc.stringContent = true;
      if (any.content !== '') parts.push({ type: 'text', text: any.content });
    } else
      parts = (any.content as unknown[]).map((b) => {
        const p = blockToPart(b);
        if (p.type === 'tool-call') p.provider = { framework: { ...p.provider?.framework, inContent: true } };
        return p;
      });
    if (isBag(reasoning) && reasoning.type === 'reasoning') parts.unshift(kwargsReasoning(reasoning));
    else if (reasoning !== undefined) lc.additional_kwargs = json(kwargs);
    if (role === 'assistant') toolCallParts(any.tool_calls, parts);
  }
  const n: Message = {
    id: typeof any.id === 'string' ? any.id : id,
    role,
    parts,
    provider: { framework: { lc } },
  };
  if (role !== 'tool' && typeof any.name === 'string') n.name = any.name;
  const usage = role === 'assistant' ? usageOf(any.usage_metadata) : undefined;
  if (usage) n.usage = usage;
  const model = responseMetadata.model_name ?? responseMetadata.model;
  if (role === 'assistant' && typeof model === 'string') n.model = model;
  if (isBag(stash)) applyStash(n, stash);
  return n;
}

/**
 * Neutral messages for LangChain messages. A message without an `id` gets `${idPrefix}${i}`. Each
 * neutral message is remembered with its original, which `toLangChainMessages` returns for it as long
 * as it is handed back unchanged.
 */
export function fromLangChainMessages(
  messages: readonly BaseMessage[],
  options: { idPrefix?: string } = {},
): Message[] {
  if (!Array.isArray(messages))
    throw new CtxError('invalid_input', 'expected an array of LangChain messages', { path: 'messages' });
  const prefix = options.idPrefix ?? 'lc';
  return messages.map((m, i) => {
    const n = fromLangChainMessage(m, `${prefix}${i}`, i);
    remember(n, m);
    return n;
  });
}
