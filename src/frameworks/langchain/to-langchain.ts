/**
 * Neutral `Message` → LangChain `BaseMessage`: the inverse of `fromLangChainMessages`. A neutral message
 * handed back unchanged returns the caller's own LangChain object; one a stage changed (or made: a
 * summary) is rebuilt from its parts and what `provider.framework.lc` kept. What LangChain has no field
 * for (ctxkit's `meta`, a usage or model it would not derive, provider data of parts from another
 * dialect) goes under `response_metadata.ctxkit`, which no LangChain provider integration sends, so the
 * message reads back the same and a summary is still known as one on the next turn.
 */
import {
  AIMessage,
  type BaseMessage,
  type ContentBlock,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { type JsonValue, type Message, type Part, resultContent, type Usage } from '../../core/index.ts';
import { type Bag, isBag, json, partToBlock, said, same } from './blocks.ts';
import { fromLangChainMessage, STASH_KEY } from './from-langchain.ts';
import { originOf } from './origins.ts';

type ToolCallPart = Extract<Part, { type: 'tool-call' }>;
type ResultPart = Extract<Part, { type: 'tool-result' }>;

function usageMetadata(u: Usage): Bag {
  const read = u.cacheReadTokens ?? 0;
  const write = u.cacheWriteTokens ?? 0;
  const input = u.inputTokens + read + write;
  const out: Bag = {
    input_tokens: input,
    output_tokens: u.outputTokens,
    total_tokens: u.totalTokens ?? input + u.outputTokens,
  };
  if (u.cacheReadTokens !== undefined || u.cacheWriteTokens !== undefined)
    out.input_token_details = {
      ...(u.cacheReadTokens !== undefined ? { cache_read: read } : {}),
      ...(u.cacheWriteTokens !== undefined ? { cache_creation: write } : {}),
    };
  if (u.reasoningTokens !== undefined) out.output_token_details = { reasoning: u.reasoningTokens };
  return out;
}

function toolCall(p: ToolCallPart): Bag {
  const kept = p.provider?.framework?.call;
  if (isBag(kept) && kept.id === p.id && kept.name === p.name && same(kept.args ?? {}, p.args))
    return json(kept);
  return { id: p.id, name: p.name, args: json(p.args), type: 'tool_call' };
}

/** The OpenAI Responses reasoning item for a reasoning part that has one and no signature. */
function kwargsReasoning(p: Part): Bag | undefined {
  if (p.type !== 'reasoning' || p.signature !== undefined) return undefined;
  const kept = p.provider?.framework?.reasoning;
  const item = p.provider?.responses?.item;
  if (!isBag(kept) && !(isBag(item) && typeof item.id === 'string')) return undefined;
  const base: Bag = isBag(kept) ? json(kept) : { ...(isBag(item) ? json(item) : {}), type: 'reasoning' };
  const summary = Array.isArray(base.summary) ? base.summary : [];
  const text = summary.map((s) => (isBag(s) && typeof s.text === 'string' ? s.text : '')).join('\n\n');
  if (text === p.text && Array.isArray(base.summary)) return base;
  return { ...base, summary: p.text === '' ? [] : [{ type: 'summary_text', text: p.text }] };
}

type Content = string | ContentBlock[];

function content(parts: readonly Part[], lc: Bag | undefined): Content {
  const blocks = parts.map(partToBlock).filter((b) => b !== undefined);
  const plain =
    blocks.length === 1 && blocks[0]?.type === 'text' && Object.keys(blocks[0]).length === 2
      ? blocks[0]
      : undefined;
  if (blocks.length === 0 && (lc === undefined || lc.stringContent === true)) return '';
  if (plain && (lc === undefined || lc.stringContent === true)) return String(plain.text);
  return blocks as unknown as ContentBlock[];
}

function toolMessage(r: ResultPart, base: Bag, lc: Bag | undefined): ToolMessage {
  // A multi-part result as its blocks while they stand for `output` (each kept block as it came).
  const parts = resultContent(r);
  const text: Content = parts
    ? (parts.map(partToBlock).filter((b) => b !== undefined) as unknown as ContentBlock[])
    : typeof r.output === 'string'
      ? r.output
      : JSON.stringify(r.output);
  return new ToolMessage({
    ...base,
    content: text,
    tool_call_id: r.callId,
    ...(r.name !== undefined ? { name: r.name } : {}),
    ...(r.isError
      ? { status: 'error' as const }
      : lc?.status !== undefined
        ? { status: lc.status as 'success' }
        : {}),
    ...(lc?.artifact !== undefined ? { artifact: json(lc.artifact) } : {}),
  });
}

/** The LangChain message(s) for one neutral message, before the stash. */
function build(m: Message): BaseMessage[] {
  const lc = m.provider?.framework?.lc as Bag | undefined;
  const base: Bag = {};
  if (lc?.noId !== true) base.id = m.id;
  if (m.name !== undefined) base.name = m.name;
  if (isBag(lc?.response_metadata)) base.response_metadata = json(lc.response_metadata);
  const kwargs: Bag = isBag(lc?.additional_kwargs) ? json(lc.additional_kwargs) : {};
  const results = m.parts.filter((p): p is ResultPart => p.type === 'tool-result');
  if (m.role === 'tool' || results.length > 0) {
    // One ToolMessage per result (LangChain has one result per message); other parts follow as a user turn.
    const out: BaseMessage[] = results.map((r, k) =>
      toolMessage(r, { ...base, ...(k > 0 && base.id !== undefined ? { id: `${m.id}:${k}` } : {}) }, lc),
    );
    // Parts with no block (an approval response) add no user turn: the stash keeps them.
    const rest = m.parts.filter((p) => p.type !== 'tool-result');
    if (rest.some((p) => partToBlock(p) !== undefined))
      out.push(new HumanMessage({ id: `${m.id}:rest`, content: content(rest, lc) }));
    return out;
  }
  if (m.role === 'system') return [new SystemMessage({ ...base, content: content(m.parts, lc) })];
  if (m.role === 'user') return [new HumanMessage({ ...base, content: content(m.parts, lc) })];
  const reasoning = m.parts.map(kwargsReasoning).find((r) => r !== undefined);
  if (reasoning) kwargs.reasoning = reasoning;
  const shown = m.parts.filter(
    (p) =>
      (p.type !== 'tool-call' || p.provider?.framework?.inContent === true) &&
      kwargsReasoning(p) === undefined,
  );
  const calls = m.parts.filter((p): p is ToolCallPart => p.type === 'tool-call').map(toolCall);
  const usage = isBag(lc?.usage_metadata)
    ? json(lc.usage_metadata)
    : m.usage
      ? usageMetadata(m.usage)
      : undefined;
  return [
    new AIMessage({
      ...base,
      content: content(shown, lc),
      ...(Object.keys(kwargs).length > 0 ? { additional_kwargs: kwargs } : {}),
      tool_calls: calls as never,
      ...(Array.isArray(lc?.invalid_tool_calls)
        ? { invalid_tool_calls: json(lc.invalid_tool_calls) as never }
        : {}),
      ...(usage ? { usage_metadata: usage as never } : {}),
    }),
  ];
}

/** What reading `out` back would not give of `m`, for `response_metadata.ctxkit`. */
function stashFor(m: Message, out: BaseMessage): Bag | undefined {
  const back = fromLangChainMessage(out, m.id);
  const stash: Bag = {};
  const mine = m as unknown as Bag;
  const theirs = back as unknown as Bag;
  for (const key of ['meta', 'usage', 'model', 'name'])
    if (!same(mine[key], theirs[key]))
      stash[key] = mine[key] === undefined ? null : json(mine[key] as JsonValue);
  const { framework: _, ...provider } = m.provider ?? {};
  if (Object.keys(provider).length > 0) stash.provider = json({ ...provider, ...back.provider }) as JsonValue;
  if (back.parts.length !== m.parts.length || back.parts.some((p, i) => p.type !== m.parts[i]?.type))
    stash.parts = m.parts.map((p) => json(said(p) as Bag)) as JsonValue;
  else {
    const diffs: Bag = {};
    m.parts.forEach((p, i) => {
      const a = { ...(said(p) as Bag), ...(p.provider ? { provider: p.provider } : {}) } as Bag;
      const b = {
        ...(said(back.parts[i] as Part) as Bag),
        ...(back.parts[i]?.provider ? { provider: back.parts[i]?.provider } : {}),
      } as Bag;
      const d: Bag = {};
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (!same(a[k], b[k])) d[k] = a[k] === undefined ? null : json(a[k] as JsonValue);
      if (Object.keys(d).length > 0) diffs[i] = d;
    });
    if (Object.keys(diffs).length > 0) stash.parts = diffs;
  }
  return Object.keys(stash).length > 0 ? stash : undefined;
}

/** The LangChain message(s) for one neutral message: the original when it is handed back unchanged. */
export function toLangChainMessage(m: Message): BaseMessage[] {
  const original = originOf(m);
  if (original) return [original];
  const built = build(m);
  const only = built.length === 1 ? built[0] : undefined;
  const stash = only ? stashFor(m, only) : undefined;
  if (only && stash) only.response_metadata = { ...only.response_metadata, [STASH_KEY]: stash };
  return built;
}

/** LangChain messages for neutral messages (a neutral message holding several tool results gives several). */
export function toLangChainMessages(messages: readonly Message[]): BaseMessage[] {
  return messages.flatMap(toLangChainMessage);
}
