/**
 * The numbers behind a context view: every part of the prompt as a category and a row — the system
 * prompt, the tool schemas, the blocks ctxkit injects (memories), the summary and the messages by part
 * kind — each row with its tokens and, when the caller has it, its full text. Pure and runtime-free, so
 * the CLI's `inspect --html` and the Worker's pages draw from the same model.
 */

import { outputText } from '../core/messages/text.ts';
import type { Message, Part } from '../core/messages/types.ts';
import type { TokenCounter } from '../core/ports.ts';

export const CATEGORIES = [
  'system',
  'tools',
  /** Blocks ctxkit adds to the prompt: the memory block, recalled memories. */
  'injected',
  'summary',
  'text',
  'reasoning',
  'tool-call',
  'tool-result',
  'image',
  /** Items ctxkit carries without reading them: files, audio, hosted tool calls (opaque parts). */
  'pass-through',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** What a category is called on the page. */
export const CATEGORY_LABELS: Record<Category, string> = {
  system: 'system prompt',
  tools: 'tool schemas',
  injected: 'injected by ctxkit',
  summary: 'summary',
  text: 'text',
  reasoning: 'reasoning',
  'tool-call': 'tool calls',
  'tool-result': 'tool results',
  image: 'images',
  'pass-through': 'pass-through',
};

export interface ViewBudget {
  window: number;
  usable: number;
  warning: number;
  autoCompact: number;
  blocking: number;
}

/** Longest full text a row carries (a longer one keeps its head and says how much is left out). */
export const ROW_TEXT_MAX = 60_000;

export interface MessageRow {
  /** Position among the messages (0-based); a prompt part (system, tools, injected) has none. */
  index?: number;
  id: string;
  role: string;
  /** The category that holds most of its tokens. */
  category: Category;
  label: string;
  tokens: number;
  preview: string;
  /** The full text (at most `ROW_TEXT_MAX` characters), when the caller has it. */
  text?: string;
  /** Characters of the whole text. */
  chars?: number;
  /** Set when the row was removed or rewritten by a stage (`removed`, `truncated`, …). */
  change?: string;
  /** Added to the prompt by ctxkit (a summary, the memory block, a digest), not by the client. */
  ctxkit?: boolean;
}

export interface ContextView {
  title: string;
  /** What the window holds now: the estimate (anchored to usage when the caller has it). */
  tokens: number;
  level: string;
  budget: ViewBudget;
  /** Tokens per category; they add up to `counted`. */
  segments: Array<{ category: Category; tokens: number; items: number }>;
  counted: number;
  largest: MessageRow[];
  /** The prompt's parts before the messages: system prompt, injected blocks, tool schemas. */
  parts: MessageRow[];
  rows: MessageRow[];
}

/** A tool schema as the view shows it: its name and its definition as JSON. */
export interface ToolSchema {
  name: string;
  json: string;
}

/** A block ctxkit adds to the prompt (the memory block), by what it is. */
export interface InjectedBlock {
  label: string;
  text: string;
}

export interface ContextViewInput {
  title: string;
  messages: readonly Message[];
  counter: TokenCounter;
  budget: ViewBudget;
  /** The estimate to show against the levels; the counted sum when absent. */
  tokens?: number;
  level?: string;
  /** The client's system prompt. */
  system?: string;
  tools?: readonly ToolSchema[];
  injected?: readonly InjectedBlock[];
  /** Changes per message id (from a journal). */
  changes?: ReadonlyMap<string, string>;
  /** Leave the rows' full texts out (a page that fetches them on demand). @default false */
  withoutText?: boolean;
  top?: number;
}

function partCategory(p: Part): Category {
  if (p.type === 'opaque') return 'pass-through';
  if (p.type === 'tool-approval') return 'tool-call';
  return p.type;
}

/** The tokens of one part on its own, as the view and `ctxcheck inspect` count them. */
export function partTokens(p: Part, counter: TokenCounter): number {
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return counter.countText(p.text);
    case 'tool-call':
      return counter.countText(p.name + JSON.stringify(p.args));
    case 'tool-result':
      // A multi-part result (text, images, files) is counted as what its parts are.
      return p.content
        ? counter.countMessage({ id: 'part', role: 'tool', parts: [p] })
        : counter.countText(outputText(p.output));
    default:
      // Images, pass-through items and approvals: what the counter gives the part on its own.
      return counter.countMessage({ id: 'part', role: 'user', parts: [p] });
  }
}

/** A message that stands for older history (a compaction summary) or for long-term memory. */
function wholeCategory(m: Message): Category | undefined {
  const kind = m.meta?.kind ?? '';
  if (kind === 'summary' || kind === 'compaction-marker' || m.meta?.isCompactSummary === true)
    return 'summary';
  if (kind.includes('memory') || kind === 'recall') return 'injected';
  // A system message is the system prompt, however a format carries it (OpenAI's first message).
  if (m.role === 'system') return 'system';
  return undefined;
}

/** Message kinds ctxkit writes itself. */
const CTXKIT_KINDS = new Set([
  'summary',
  'compaction-marker',
  'tool_summary',
  'standing-instructions',
  'recall',
]);

function labelOf(m: Message, names: ReadonlyMap<string, string>): string {
  const calls = m.parts.flatMap((p) => (p.type === 'tool-call' ? [p.name] : []));
  const result = m.parts.find((p) => p.type === 'tool-result');
  if (result?.type === 'tool-result')
    return `${m.role} (${result.name ?? names.get(result.callId) ?? result.callId})`;
  if (calls.length > 0) return `${m.role} → ${calls.join(', ')}`;
  return m.meta?.kind && m.meta.kind !== m.role ? `${m.role} [${m.meta.kind}]` : m.role;
}

/** A message's readable content: text and reasoning, tool calls as `name args`, tool results' output. */
export function messageContent(m: Message): string {
  return m.parts
    .map((p) =>
      p.type === 'text' || p.type === 'reasoning'
        ? p.text
        : p.type === 'tool-result'
          ? outputText(p.output)
          : p.type === 'tool-call'
            ? `${p.name} ${JSON.stringify(p.args)}`
            : p.type === 'image'
              ? '[image]'
              : '',
    )
    .filter((t) => t !== '')
    .join('\n');
}

/** The first `length` characters of a text on one line. */
export function flatPreview(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

/** A full text for a row: at most `ROW_TEXT_MAX` characters, saying how many more there were. */
export function rowText(text: string): string {
  return text.length <= ROW_TEXT_MAX
    ? text
    : `${text.slice(0, ROW_TEXT_MAX)}\n[… ${(text.length - ROW_TEXT_MAX).toLocaleString('en-US')} more characters]`;
}

/** Splits a message's count over its parts in proportion to their sizes, so categories add up to it. */
function split(m: Message, total: number, counter: TokenCounter): Map<Category, number> {
  const out = new Map<Category, number>();
  const whole = wholeCategory(m);
  if (whole || m.parts.length <= 1) {
    // One part holds the whole count: no need to size it again.
    out.set(whole ?? (m.parts[0] ? partCategory(m.parts[0]) : 'text'), total);
    return out;
  }
  const sizes = m.parts.map((p) => partTokens(p, counter));
  const sum = sizes.reduce((a, b) => a + b, 0);
  let given = 0;
  m.parts.forEach((p, i) => {
    const share =
      i === m.parts.length - 1
        ? total - given
        : Math.round(sum === 0 ? total / m.parts.length : (total * sizes[i]!) / sum);
    given += share;
    const c = partCategory(p);
    out.set(c, (out.get(c) ?? 0) + share);
  });
  return out;
}

/** The rows of the prompt's parts: the system prompt, the injected blocks, each tool schema. */
function promptParts(input: ContextViewInput): MessageRow[] {
  const { counter } = input;
  const row = (id: string, role: string, category: Category, label: string, text: string, tokens: number) => {
    const r: MessageRow = {
      id,
      role,
      category,
      label,
      tokens,
      preview: flatPreview(text),
      chars: text.length,
    };
    if (!input.withoutText) r.text = rowText(text);
    return r;
  };
  const out: MessageRow[] = [];
  if (input.system)
    out.push(
      row('system', 'system', 'system', 'system prompt', input.system, counter.countText(input.system)),
    );
  for (const [i, b] of (input.injected ?? []).entries())
    out.push({
      ...row(`injected-${i + 1}`, 'system', 'injected', b.label, b.text, counter.countText(b.text)),
      ctxkit: true,
    });
  for (const t of input.tools ?? [])
    out.push(row(`tool-${t.name}`, 'tools', 'tools', `tool ${t.name}`, t.json, counter.countText(t.json)));
  return out;
}

export function buildContextView(input: ContextViewInput): ContextView {
  const { counter, messages } = input;
  const names = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name);
  const totals = new Map<Category, { tokens: number; items: number }>();
  const add = (c: Category, tokens: number) => {
    const t = totals.get(c) ?? { tokens: 0, items: 0 };
    t.tokens += tokens;
    t.items++;
    totals.set(c, t);
  };
  const parts = promptParts(input);
  for (const p of parts) add(p.category, p.tokens);
  const rows: MessageRow[] = messages.map((m, index) => {
    const tokens = m.meta?.agentVisible === false ? 0 : counter.countMessage(m);
    const split_ = split(m, tokens, counter);
    let category: Category = 'text';
    let most = -1;
    for (const [c, n] of split_) {
      add(c, n);
      if (n > most) [category, most] = [c, n];
    }
    const content = messageContent(m);
    const row: MessageRow = {
      index,
      id: m.id,
      role: m.role,
      category,
      label: labelOf(m, names),
      tokens,
      preview: flatPreview(content),
      chars: content.length,
    };
    if (!input.withoutText) row.text = rowText(content);
    if (CTXKIT_KINDS.has(m.meta?.kind ?? '')) row.ctxkit = true;
    const change = input.changes?.get(m.id);
    if (change) row.change = change;
    return row;
  });
  const segments = CATEGORIES.flatMap((category) => {
    const t = totals.get(category);
    return t ? [{ category, ...t }] : [];
  });
  const counted = segments.reduce((n, s) => n + s.tokens, 0);
  const largest = [...parts, ...rows].sort((a, b) => b.tokens - a.tokens).slice(0, input.top ?? 10);
  return {
    title: input.title,
    tokens: input.tokens ?? counted,
    level: input.level ?? levelOf(input.tokens ?? counted, input.budget),
    budget: input.budget,
    segments,
    counted,
    largest,
    parts,
    rows,
  };
}

/** The level a token count reaches against the budget's thresholds. */
export function levelOf(tokens: number, b: ViewBudget): string {
  return tokens >= b.blocking
    ? 'block'
    : tokens >= b.autoCompact
      ? 'compact'
      : tokens >= b.warning
        ? 'warn'
        : 'ok';
}
