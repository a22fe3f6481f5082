/**
 * LLM providers for ctxkit: the OpenAI-compatible summarizer (its configuration) and embedder, which
 * load the optional `openai` SDK on first use, plus the prompt families and answer parsers (they live in
 * the core and are re-exported here under their former names). Everything but the two SDK-backed
 * pieces works without `openai` installed. Web-standard only; not part of the core.
 */

export type { ParsedAnswer, PromptOptions, PromptPlan } from '../core/index.ts';
export {
  buildPrompt,
  CO_CLI_SUMMARY_PROMPT,
  CO_CLI_SYSTEM_PROMPT,
  COWAGENT_LINE_CHARS,
  COWAGENT_NOTHING,
  COWAGENT_SYSTEM_PROMPT,
  clipWithNote,
  coCliHistory,
  coCliPrompt,
  cowagentPrompt,
  cowagentTranscript,
  fallbackSummary,
  KOSMOKRATOR_MEMORY_PROMPT,
  KOSMOKRATOR_SUMMARY_SYSTEM_PROMPT,
  KOSMOKRATOR_SYSTEM_PROMPT,
  KOSMOKRATOR_TRANSCRIPT_CAP,
  kosmokratorMemoryPrompt,
  kosmokratorPrompt,
  kosmokratorPromptTranscript as kosmokratorTranscript,
  kosmokratorTwoCallPrompt,
  normalizeMemories,
  parseCowagentAnswer,
  parseKosmokratorAnswer,
  stripFence,
  stripThinking,
  TIANCAI_CHECKPOINT_SYSTEM,
  TIANCAI_LIMITS,
  TIANCAI_TOOL_SYSTEM,
  TRANSCRIPT_TRUNCATED_LINE,
  tiancaiBatchPrompt,
  tiancaiCheckpointPrompt,
  tiancaiPromptTranscript as tiancaiTranscript,
  tiancaiToolPrompt,
  updateBlock,
} from '../core/index.ts';
export * from './config.ts';
export * from './openai-chat.ts';
export * from './openai-embedder.ts';
export * from './openai-sdk.ts';
export * from './openai-summarizer.ts';
export * from './options.ts';
export * from './retry.ts';
export type * from './sdk-types.ts';
export * from './with-fallback.ts';
