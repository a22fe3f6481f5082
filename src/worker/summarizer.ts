/**
 * The Worker's summarizer: the OpenAI-compatible provider configured by `CTXKIT_LLM_*` vars and
 * secrets (`summarizerConfigFromEnv`, src/providers), else the deterministic extractive summarizer
 * of core. The bare LLM summarizer goes into the pipeline (a failure is a `failed` report, counted
 * by the circuit breaker, and the stage's own fallback takes over).
 */

import type { Summarizer } from '../core/index.ts';
import * as core from '../core/index.ts';
import { summarizerFromEnv } from '../providers/index.ts';
import type { Env } from './env.ts';

export interface WorkerSummarizer {
  summarizer: Summarizer;
  llm: boolean;
  message: string;
}

const unavailable: Summarizer = {
  name: 'none',
  summarize: async () => {
    throw new Error('no offline summarizer in this build');
  },
};

function offline(): Summarizer {
  const make = (core as Record<string, unknown>).createDeterministicSummarizer;
  return typeof make === 'function' ? (make as () => Summarizer)() : unavailable;
}

export function workerSummarizer(env: Env): WorkerSummarizer {
  return summarizerFromEnv(env, { fallback: offline(), wrap: false });
}
