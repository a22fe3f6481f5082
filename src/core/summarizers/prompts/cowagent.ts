/**
 * 000/004 (CowAgent memory flush, SEED-RULES §2.3): a transcript of `用户:` / `助手:` lines (first 500
 * characters of each message's text), temperature 0, max_tokens 500, and a system prompt asking for
 * `[DAILY]` and `[MEMORY]` sections, or "无" when nothing is worth keeping.
 */
import { messageText } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import type { SummarizeRequest } from '../../ports.ts';
import { parseCowagentAnswer } from './parse-answer.ts';
import type { PromptPlan } from './types.ts';
import { updateBlock } from './update.ts';

/** @default 500 characters of each message in the transcript. */
export const COWAGENT_LINE_CHARS = 500;

export const COWAGENT_SYSTEM_PROMPT = `你是一个对话记忆整理助手。阅读下面的对话记录，按以下格式输出：

[DAILY]
本段对话的要点：做了什么、得出了什么结论、还有什么待办（简短的列表）。

[MEMORY]
值得长期记住的信息：用户的偏好、重要的决定、项目的事实。每行一条，以 "- " 开头；没有就留空。

只输出这两个部分。如果对话中没有任何值得记录的内容，只回复"无"。`;

/** One line per user/assistant message with text; other messages are left out. */
export function cowagentTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const text = messageText(m).trim();
    if (text === '') continue;
    lines.push(
      `${m.role === 'user' ? '用户' : '助手'}: ${Array.from(text).slice(0, COWAGENT_LINE_CHARS).join('')}`,
    );
  }
  return lines.join('\n');
}

/** The flush prompt; the stage's `transcript` is used when given. */
export function cowagentPrompt({
  messages,
  transcript,
  previousSummary,
  instructions,
}: SummarizeRequest): PromptPlan {
  return {
    family: 'cowagent',
    messages: [
      { role: 'system', content: COWAGENT_SYSTEM_PROMPT },
      {
        role: 'user',
        content: `对话记录：\n${transcript ?? cowagentTranscript(messages)}${updateBlock(previousSummary, instructions)}`,
      },
    ],
    temperature: 0,
    maxTokens: 500,
    parse: parseCowagentAnswer,
  };
}
