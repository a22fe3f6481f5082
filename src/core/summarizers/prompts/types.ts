import type { OpenAIMessage } from '../../adapters/openai.ts';
import type { ExtractedMemory } from '../../ports.ts';

/** What a prompt family's parser makes of the answer text. */
export interface ParsedAnswer {
  summary: string;
  memories?: ExtractedMemory[];
}

/** One summarisation call: the messages, sampling limits and how to read the answer. */
export interface PromptPlan {
  /** Prompt family, for logs and tests: `kosmokrator`, `tiancai-checkpoint`, `tiancai-tool`, … */
  family: string;
  /** System first; OpenAI Chat Completions shape (co-cli puts the dropped history between). */
  messages: OpenAIMessage[];
  temperature?: number;
  maxTokens?: number;
  /** The answer is clipped to this many runes after parsing. */
  maxOutputRunes?: number;
  parse(text: string): ParsedAnswer;
  /** A second call that extracts memories from the parsed summary (002 `second-call`). */
  memoryFollowUp?: (summary: string) => PromptPlan;
}

export interface PromptOptions {
  /** @default 'same-call' */
  memoryExtraction?: 'same-call' | 'second-call';
}
