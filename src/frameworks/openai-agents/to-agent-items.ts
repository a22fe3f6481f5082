/**
 * Neutral `Message` → Agents SDK `AgentInputItem`: the inverse of `fromAgentInputItems`. A neutral
 * message handed back unchanged returns the caller's own items; otherwise each part comes back as the
 * item it was made from while it still says what that item said, and as a new item when a stage changed
 * it or made it (a truncated output, a summary). New items carry no `id`: the Responses API checks
 * item ids, and a made-up one would be rejected.
 */
import type { AgentInputItem } from '@openai/agents';
import { type JsonValue, type Message, type Part, resultContent } from '../../core/index.ts';
import { fromAgentInputItems } from './from-agent-items.ts';
import { type Bag, isBag, json, same } from './json.ts';
import { originOf } from './origins.ts';

/** What a part says, without what rides along. */
function said(p: Part): unknown {
  const { provider: _, ...rest } = p;
  return rest;
}

/** The part `item` gives at `at` today (to tell whether a stage changed it). */
function partFrom(item: Bag, at: number | undefined, role: string): Part | undefined {
  const m = fromAgentInputItems([item as unknown as AgentInputItem]);
  const parts = m[0]?.parts ?? [];
  if (at === undefined || at < 0) return parts[0];
  return parts.find((p) => p.provider?.framework?.at === at) ?? (role ? undefined : undefined);
}

function argsOf(p: Extract<Part, { type: 'tool-call' }>): string {
  if (p.argsText !== undefined) {
    try {
      if (same(JSON.parse(p.argsText), p.args)) return p.argsText;
    } catch {
      // stale argsText: serialise args
    }
  }
  return typeof p.args === 'string' ? p.args : JSON.stringify(p.args);
}

function contentEntry(p: Part, role: string): Bag {
  if (p.type === 'image')
    return {
      type: 'input_image',
      image: p.url ?? `data:${p.mediaType ?? 'image/png'};base64,${p.data ?? ''}`,
    };
  const t = p.type === 'text' || p.type === 'reasoning' ? p.text : '';
  return { type: role === 'assistant' ? 'output_text' : 'input_text', text: t };
}

/** A function output for a result: its entries while its parts stand for it, else its text. */
function resultOutput(p: Extract<Part, { type: 'tool-result' }>): JsonValue {
  const parts = resultContent(p);
  if (parts === undefined)
    return { type: 'text', text: typeof p.output === 'string' ? p.output : JSON.stringify(p.output) };
  return parts.flatMap((c): JsonValue[] => {
    if (c.type === 'opaque') return c.source === 'openai-agents' ? [json(c.value)] : [];
    if (c.type === 'text') return [{ type: 'input_text', text: c.text }];
    return [
      { type: 'input_image', image: c.url ?? `data:${c.mediaType ?? 'image/png'};base64,${c.data ?? ''}` },
    ];
  });
}

/** A fresh item for a part that has no item of its own (or whose item no longer says what it says). */
function freshItem(
  p: Part,
  role: string,
  kept: Bag | undefined,
  callNames: ReadonlyMap<string, string>,
): Bag {
  switch (p.type) {
    case 'reasoning': {
      const r = p.provider?.responses?.item;
      const base: Bag = kept ? { ...kept } : { type: 'reasoning' };
      if (!kept && isBag(r) && typeof r.id === 'string') base.id = r.id;
      if (!kept && isBag(r) && typeof r.encrypted_content === 'string')
        base.providerData = { encryptedContent: r.encrypted_content };
      return { ...base, content: p.text === '' ? [] : [{ type: 'input_text', text: p.text }] };
    }
    case 'tool-call':
      return {
        ...(kept ?? { type: 'function_call', status: 'completed' }),
        callId: p.id,
        name: p.name,
        arguments: argsOf(p),
      };
    case 'tool-result':
      return {
        ...(kept ?? { type: 'function_call_result', status: 'completed' }),
        callId: p.callId,
        name:
          p.name ??
          (isBag(kept) && typeof kept.name === 'string' ? kept.name : (callNames.get(p.callId) ?? '')),
        output: resultOutput(p),
      };
    default:
      return role === 'assistant'
        ? { type: 'message', role, status: 'completed', content: [contentEntry(p, role)] }
        : { role, content: [contentEntry(p, role)] };
  }
}

/** The items for one neutral message (`callNames` names results that carry no tool name: the SDK needs one). */
export function toAgentInputItem(
  m: Message,
  callNames: ReadonlyMap<string, string> = new Map(),
): AgentInputItem[] {
  const original = originOf(m);
  if (original) return [...original];
  const out: Bag[] = [];
  let group: { source: Bag | undefined; item: Bag } | undefined;
  for (const p of m.parts) {
    if (p.type === 'opaque' && p.provider?.framework === undefined) {
      // An item of its own; another dialect's opaque part means nothing to the SDK.
      if (p.source === 'openai-agents' && isBag(p.value)) out.push(json(p.value));
      group = undefined;
      continue;
    }
    // No item holds an approval (the SDK keeps them in its run state), nor another dialect's part.
    if (p.type === 'tool-approval' || (p.type === 'opaque' && p.source !== 'openai-agents')) continue;
    const fw = p.provider?.framework;
    const source = isBag(fw?.item) ? fw.item : undefined;
    const at = typeof fw?.at === 'number' ? fw.at : undefined;
    const unchanged = source !== undefined && same(said(partFrom(source, at, '') ?? ({} as Part)), said(p));
    if (at !== undefined && source) {
      // A content entry of a message item: entries of the same item gather again.
      const entry = unchanged && at >= 0 ? (source.content as Bag[])[at]! : contentEntry(p, m.role);
      if (at < 0 && unchanged) {
        out.push(json(source));
        group = undefined;
        continue;
      }
      if (!group || !same(group.source, source)) {
        group = { source, item: { ...json(source), content: [] } };
        out.push(group.item);
      }
      (group.item.content as Bag[]).push(json(entry));
      continue;
    }
    const mergeable = (p.type === 'text' || p.type === 'image') && !source;
    if (mergeable && group && group.source === undefined) {
      (group.item.content as Bag[]).push(contentEntry(p, m.role));
      continue;
    }
    const item = unchanged ? json(source) : freshItem(p, m.role, source, callNames);
    out.push(item);
    group = mergeable ? { source: undefined, item } : undefined;
  }
  // A system message from elsewhere is one string, as the SDK's own system items are.
  if (m.role === 'system' && !originOf(m))
    for (const item of out)
      if (Array.isArray(item.content) && item.content.length === 1 && !m.parts[0]?.provider?.framework)
        item.content = String((item.content[0] as Bag).text ?? '');
  return out as unknown as AgentInputItem[];
}

/** Agents SDK items for neutral messages. */
export function toAgentInputItems(messages: readonly Message[]): AgentInputItem[] {
  const callNames = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') callNames.set(p.id, p.name);
  return messages.flatMap((m) => toAgentInputItem(m, callNames));
}
