import type { JsonValue, Message, Part, ToolCallPart, ToolResultPart } from './types.ts';

/** The text of a tool result as a model sees it: strings as they are, JSON serialised. */
export function outputText(output: string | JsonValue): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
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

/** Returns a copy of `message` with `patch` merged into its meta. */
export function withMeta(message: Message, patch: Message['meta']): Message {
  return { ...message, meta: { ...message.meta, ...patch } };
}
