/**
 * 003 (tiancaiamao/ai): the checkpoint summary of old messages (SEED-RULES §5.6) and the tool-result
 * summaries, one result or a batch (§5.3). Lines are joined with real newlines (the upstream prompt's
 * literal `\n` is a bug, §6 #32, not reproduced).
 */
import { CtxError } from '../../errors.ts';
import { messageText, outputText } from '../../messages/text.ts';
import type { Message, ToolResultPart } from '../../messages/types.ts';
import type { SummarizeRequest } from '../../ports.ts';
import { trimTextWithTail } from '../../text/trim.ts';
import type { PromptPlan } from './types.ts';
import { updateBlock } from './update.ts';

/** Limits in runes. */
export const TIANCAI_LIMITS = {
  /** @default 1800 — a tool result inside the checkpoint transcript */
  checkpointToolResult: 1800,
  /** @default 12000 — input of a one-result summary */
  toolInput: 12_000,
  /** @default 1200 — answer of a one-result summary */
  toolOutput: 1200,
  /** @default 4000 — each item of a batch */
  batchItem: 4000,
  /** @default 24000 — the whole batch payload */
  batchPayload: 24_000,
  /** @default 2200 — answer of a batch summary */
  batchOutput: 2200,
} as const;

const EMPTY_OUTPUT = '(empty output)';

/** The serialised transcript of the visible messages; empty string when none is visible. */
export function tiancaiPromptTranscript(messages: readonly Message[]): string {
  const blocks: string[] = [];
  for (const m of messages) {
    if (m.meta?.agentVisible === false || m.role === 'system') continue;
    if (m.role === 'user') {
      const text = messageText(m);
      if (text !== '') blocks.push(`[User]: ${text}`);
    } else if (m.role === 'assistant') {
      for (const p of m.parts)
        if (p.type === 'reasoning' && p.text !== '') blocks.push(`[Assistant thinking]: ${p.text}`);
      const text = messageText(m);
      if (text !== '') blocks.push(`[Assistant]: ${text}`);
      const calls = m.parts.flatMap((p) =>
        p.type === 'tool-call' ? [`${p.name}(${JSON.stringify(p.args)})`] : [],
      );
      if (calls.length > 0) blocks.push(`[Assistant tool calls]: ${calls.join('; ')}`);
    }
    for (const p of m.parts) {
      if (p.type !== 'tool-result') continue;
      const text = trimTextWithTail(
        outputText(p.output) || EMPTY_OUTPUT,
        TIANCAI_LIMITS.checkpointToolResult,
      );
      blocks.push(p.name ? `[Tool result ${p.name}]: ${text}` : `[Tool result]: ${text}`);
    }
  }
  return blocks.join('\n\n');
}

export const TIANCAI_CHECKPOINT_SYSTEM = `You are a context summarization assistant. Read the conversation between a user and a coding agent and write a structured checkpoint that lets another agent continue the work exactly where it stopped. Do not continue the conversation and do not answer questions in it; output only the checkpoint.`;

const CHECKPOINT_FORMAT = `Write the checkpoint in this format:

## Goal
[What the user is trying to accomplish]

## Constraints & Preferences
[Requirements the user stated, quoted verbatim]

## Progress
### Done
[Completed work — never to be redone]
### In Progress
[Current work]
### Blocked
[Open problems]

## Key Decisions
[Decisions and why]

## Next Steps
[What to do next, in order]

## Critical Context
[File paths, identifiers, commands, error messages needed to continue]`;

/** The checkpoint prompt; the stage's `transcript` is used when given, else the messages are serialised. */
export function tiancaiCheckpointPrompt(request: SummarizeRequest): PromptPlan {
  const { previousSummary, instructions } = request;
  const transcript = request.transcript ?? tiancaiPromptTranscript(request.messages);
  if (transcript === '')
    throw new CtxError('invalid_input', 'no visible messages to summarise', { path: 'messages' });
  const user = `<conversation>\n${transcript}\n</conversation>\n\n${CHECKPOINT_FORMAT}${updateBlock(previousSummary, instructions)}`;
  return {
    family: 'tiancai-checkpoint',
    messages: [
      { role: 'system', content: TIANCAI_CHECKPOINT_SYSTEM },
      { role: 'user', content: user },
    ],
    parse: (text) => ({ summary: text.trim() }),
  };
}

interface ToolItem {
  part: ToolResultPart;
  name: string;
}

function toolItems(messages: readonly Message[]): ToolItem[] {
  const names = new Map<string, string>();
  const items: ToolItem[] = [];
  for (const m of messages)
    for (const p of m.parts) {
      if (p.type === 'tool-call') names.set(p.id, p.name);
      else if (p.type === 'tool-result')
        items.push({ part: p, name: p.name ?? names.get(p.callId) ?? 'unknown' });
    }
  return items;
}

const status = (p: ToolResultPart) => (p.isError ? 'error' : 'ok');

export const TIANCAI_TOOL_SYSTEM = `You summarize tool outputs for a coding agent whose context is running out. Keep what the agent will need later: file paths, identifiers, numbers, commands, errors and their causes, and the conclusion. Drop repetition and noise. Answer in plain text only.`;

/** One tool result → a summary of at most 1,200 runes. */
export function tiancaiToolPrompt({ messages, instructions }: SummarizeRequest): PromptPlan {
  const item = toolItems(messages)[0];
  if (!item) throw new CtxError('invalid_input', 'no tool result to summarise', { path: 'messages' });
  const input = trimTextWithTail(outputText(item.part.output) || EMPTY_OUTPUT, TIANCAI_LIMITS.toolInput);
  const user = `Summarize this tool output in at most ${TIANCAI_LIMITS.toolOutput} characters.\n\nTool: ${item.name}\nCall ID: ${item.part.callId}\nStatus: ${status(item.part)}\nOutput:\n${input}${updateBlock(undefined, instructions)}`;
  return {
    family: 'tiancai-tool',
    messages: [
      { role: 'system', content: TIANCAI_TOOL_SYSTEM },
      { role: 'user', content: user },
    ],
    maxOutputRunes: TIANCAI_LIMITS.toolOutput,
    parse: (text) => ({ summary: text.trim() }),
  };
}

/** A batch of tool results → one summary of at most 2,200 runes. */
export function tiancaiBatchPrompt({ messages, instructions }: SummarizeRequest): PromptPlan {
  const items = toolItems(messages);
  if (items.length === 0)
    throw new CtxError('invalid_input', 'no tool results to summarise', { path: 'messages' });
  const payload = items
    .map(
      ({ part, name }, i) =>
        `### ${i + 1}. Tool: ${name}\nCall ID: ${part.callId || 'n/a'}\nStatus: ${status(part)}\nOutput:\n${trimTextWithTail(outputText(part.output) || EMPTY_OUTPUT, TIANCAI_LIMITS.batchItem)}`,
    )
    .join('\n\n');
  const user = `Summarize these ${items.length} tool outputs together in at most ${TIANCAI_LIMITS.batchOutput} characters; mention each call ID with its key facts.\n\n${trimTextWithTail(payload, TIANCAI_LIMITS.batchPayload)}${updateBlock(undefined, instructions)}`;
  return {
    family: 'tiancai-batch',
    messages: [
      { role: 'system', content: TIANCAI_TOOL_SYSTEM },
      { role: 'user', content: user },
    ],
    maxOutputRunes: TIANCAI_LIMITS.batchOutput,
    parse: (text) => ({ summary: text.trim() }),
  };
}
