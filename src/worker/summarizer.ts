/**
 * The Worker's summarizer: the OpenAI-compatible provider configured by `CTXKIT_LLM_*` vars and
 * secrets (`summarizerConfigFromEnv`, src/providers), else the deterministic extractive summarizer
 * of core. The bare LLM summarizer goes into the pipeline (a failure is a `failed` report, counted
 * by the circuit breaker, and the stage's own fallback takes over).
 */
import { createDeterministicSummarizer, type Summarizer } from '../core/index.ts';
import { summarizerFromEnv } from '../providers/index.ts';
import type { Env } from './env.ts';

export interface WorkerSummarizer {
  summarizer: Summarizer;
  /** Whether an LLM provider is configured. */
  llm: boolean;
  /** Which provider, or why the deterministic summarizer is used. */
  message: string;
}

export function workerSummarizer(env: Env): WorkerSummarizer {
  return summarizerFromEnv(env, { fallback: createDeterministicSummarizer(), wrap: false });
}
