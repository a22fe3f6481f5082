import type {
  JsonValue,
  Message,
  OpaquePart,
  Part,
  ResultContentPart,
  ToolApprovalPart,
  ToolCallPart,
  ToolResultPart,
} from './types.ts';

const opaqueTexts = new WeakMap<OpaquePart | ToolApprovalPart, string>();

/**
 * What an opaque part is counted as: the JSON of the content part or item it keeps, as the provider
 * receives it. Cached per part object (a part is never changed in place).
 */
export function opaqueText(part: OpaquePart | ToolApprovalPart): string {
  let t = opaqueTexts.get(part);
  if (t === undefined) {
    // An approval is counted as the JSON a framework sends for it (ids, decision, reason).
    const { provider: _, extra: __, ...said } = part;
    t = JSON.stringify(part.type === 'opaque' ? part.value : said);
    opaqueTexts.set(part, t);
  }
  return t;
}

/** The text of a tool result as a model sees it: strings as they are, JSON serialised. */
export function outputText(output: string | JsonValue): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** The text a multi-part result stands for in `output`: its text parts joined by newlines. */
export function contentText(content: readonly ResultContentPart[]): string {
  let out = '';
  let first = true;
  for (const c of content) {
    if (c.type !== 'text') continue;
    out = first ? c.text : `${out}\n${c.text}`;
    first = false;
  }
  return out;
}

/** A result's content parts while they still stand for its `output` (see `ToolResultPart.content`). */
export function resultContent(part: ToolResultPart): ResultContentPart[] | undefined {
  const c = part.content;
  return c !== undefined && part.output === contentText(c) ? c : undefined;
}

/**
 * The parts a counter counts: a multi-part result (still valid) becomes a result with empty output
 * followed by its content parts, so images count as images. The same array when there is none.
 */
export function countedParts(parts: readonly Part[]): readonly Part[] {
  if (!parts.some((p) => p.type === 'tool-result' && p.content !== undefined)) return parts;
  const out: Part[] = [];
  for (const p of parts) {
    const c = p.type === 'tool-result' ? resultContent(p) : undefined;
    if (p.type === 'tool-result' && c !== undefined)
      out.push({ type: 'tool-result', callId: p.callId, output: '' }, ...c);
    else out.push(p);
  }
  return out;
}

/** Concatenated `text` parts of a message, joined by `\n`. */
export function messageText(message: Message): string {
  let out = '';
  for (const part of message.parts) {
    if (part.type !== 'text') continue;
    out = out === '' ? part.text : `${out}\n${part.text}`;
  }
  return out;
}

export function hasText(message: Message): boolean {
  return message.parts.some((p) => p.type === 'text' && p.text.trim() !== '');
}

export function toolCalls(message: Message): ToolCallPart[] {
  return message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
}

export function toolResults(message: Message): ToolResultPart[] {
  return message.parts.filter((p): p is ToolResultPart => p.type === 'tool-result');
}

export function isToolResultPart(part: Part): part is ToolResultPart {
  return part.type === 'tool-result';
}

export function isAgentVisible(message: Message): boolean {
  return message.meta?.agentVisible !== false;
}

export function isPinned(message: Message): boolean {
  return message.meta?.pinned === true;
}

/**
 * A user message that starts a turn: role `user` with at least one non-empty text part and no
 * tool results (CowAgent §1.2). Tool results always live in `tool` messages in this model, but
 * a `user` message carrying tool-result parts is tolerated and does not start a turn.
 */
export function startsTurn(message: Message): boolean {
  if (message.role !== 'user') return false;
  let text = false;
  for (const p of message.parts) {
    if (p.type === 'tool-result') return false;
    if (p.type === 'text') text = true;
  }
  return text;
}

/**
 * How summaries written by a model open, whoever put them in the history: ctxkit's own markers, Claude
 * Code's (the user-role message after its `compact_boundary`, `isCompactSummary` in its JSONL; a proxy
 * sees only the text) and Codex's (`summary_prefix.md`).
 */
export const SUMMARY_OPENINGS: readonly string[] = [
  '[Previous conversation summary]',
  '[Compacted conversation summary]',
  '## Compacted Conversation Summary',
  '[System: Previous conversation summary',
  'This session is being continued from a previous conversation that ran out of context.',
  'Another language model started to solve this problem and produced a summary of its thinking process.',
];

/**
 * A summary a model wrote of earlier history, whatever its role: `kind: 'summary'`, Claude Code's
 * `isCompactSummary`, or a first text part that opens like one (`SUMMARY_OPENINGS`, `[Summary of N
 * earlier messages]`).
 */
export function isModelSummary(message: Message): boolean {
  if (message.meta?.kind === 'summary' || message.meta?.isCompactSummary === true) return true;
  const first = message.parts.find((p) => p.type === 'text');
  if (first?.type !== 'text') return false;
  const t = first.text.trimStart();
  return SUMMARY_OPENINGS.some((s) => t.startsWith(s)) || /^\[Summary of \d+ earlier messages\]/.test(t);
}

/**
 * A user's request: a turn start that ctxkit did not write itself. A digest of archived tool output
 * (`kind: 'tool_summary'`), a pinned standing-instructions section and a summary (ctxkit's, or one a
 * harness put in the user's name: `isModelSummary`) are user-role text that no user typed: a summary
 * must not call one "the last request", and no instruction is pinned from one.
 */
export function isRequest(message: Message): boolean {
  const kind = message.meta?.kind;
  return (
    startsTurn(message) &&
    kind !== 'tool_summary' &&
    kind !== 'standing-instructions' &&
    !isModelSummary(message)
  );
}

/** Returns a copy of `message` with `patch` merged into its meta. */
export function withMeta(message: Message, patch: Message['meta']): Message {
  return { ...message, meta: { ...message.meta, ...patch } };
}
