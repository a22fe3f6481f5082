/**
 * 001 (co-cli, SEED-RULES §3.3): a fresh summariser with no tools, the dropped messages passed AS
 * HISTORY (chat messages, not a transcript), then a fixed prompt. The history is made valid first:
 * invisible messages become stubs or go, orphan results are dropped and missing results synthesised
 * (a window split can orphan a result, §6 #14).
 */
import { type OpenAIMessage, toOpenAI } from '../../adapters/openai.ts';
import { repairMessages } from '../../invariants/repair.ts';
import type { Message } from '../../messages/types.ts';
import { toModelView } from '../../messages/visibility.ts';
import type { SummarizeRequest } from '../../ports.ts';
import type { PromptPlan } from './types.ts';
import { updateBlock } from './update.ts';

export const CO_CLI_SYSTEM_PROMPT = 'You are a conversation summariser. Return only the summary.';

export const CO_CLI_SUMMARY_PROMPT = `Summarise the conversation so far so that it can replace the messages above. Keep:
- decisions made and their outcomes;
- file paths and tool names that were used;
- errors that came up and how they were resolved;
- pending tasks and next steps.
Return only the summary.`;

/** The dropped messages as valid OpenAI chat history. */
export function coCliHistory(messages: readonly Message[]): OpenAIMessage[] {
  const visible = toModelView(messages);
  const { messages: repaired } = repairMessages(visible, { dialect: 'openai' });
  return toOpenAI(repaired) as OpenAIMessage[];
}

/** History is always the messages themselves (a transcript would defeat the point of 001). */
export function coCliPrompt({ messages, previousSummary, instructions }: SummarizeRequest): PromptPlan {
  return {
    family: 'co-cli',
    messages: [
      { role: 'system', content: CO_CLI_SYSTEM_PROMPT },
      ...coCliHistory(messages),
      { role: 'user', content: CO_CLI_SUMMARY_PROMPT + updateBlock(previousSummary, instructions) },
    ],
    parse: (text) => ({ summary: text.trim() }),
  };
}
