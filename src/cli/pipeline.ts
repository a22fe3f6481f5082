/**
 * What the commands build from their options: the pipeline factory handed to `runFixture()`, the
 * counter a preset counts with, and the summarizer (the offline deterministic one, or the LLM
 * provider from the environment with `--llm`).
 */

import type { FixturePipelineFactory, Summarizer, TokenCounter } from '../core/index.ts';
import * as core from '../core/index.ts';
import { CliError, type CliIo, missingPackageMessage } from './io.ts';

type Exports = Record<string, unknown>;

export async function pipelineFactory(): Promise<FixturePipelineFactory> {
  const create = (core as Exports).createPipeline;
  if (typeof create !== 'function')
    throw new CliError('the pipeline (createPipeline) is not available in src/core yet');
  return create as FixturePipelineFactory;
}

/** The counter named on the command line; without one the preset picks its own. */
export function counterOption(name: string | undefined): TokenCounter | undefined {
  return name === undefined ? undefined : core.fixtureCounter(name);
}

const OFFLINE_NAMES = ['createDeterministicSummarizer', 'createExtractiveSummarizer'];

/** The offline default: the deterministic extractive summarizer of `src/core/summarizers`. */
export function offlineSummarizer(): Summarizer | undefined {
  for (const name of OFFLINE_NAMES) {
    const f = (core as Exports)[name];
    if (typeof f === 'function') return (f as () => Summarizer)();
  }
  return undefined;
}

/** `--llm`: the OpenAI-compatible provider configured by the environment, falling back to the offline one. */
export async function chooseSummarizer(llm: boolean, io: CliIo): Promise<Summarizer | undefined> {
  const fallback = offlineSummarizer();
  if (!llm) return fallback;
  let providers: Exports;
  try {
    providers = (await import('../providers/index.ts')) as Exports;
  } catch (e) {
    throw new CliError(`--llm: ${missingPackageMessage(e) ?? (e as Error).message}`);
  }
  const fromEnv = providers.summarizerFromEnv as
    | ((
        env: Record<string, unknown>,
        o: { fallback: Summarizer },
      ) => { summarizer: Summarizer; llm: boolean; message: string })
    | undefined;
  if (typeof fromEnv !== 'function')
    throw new CliError('--llm: summarizerFromEnv is missing from src/providers');
  const none: Summarizer = {
    name: 'none',
    summarize: async () => {
      throw new Error('no offline summarizer');
    },
  };
  const chosen = fromEnv(io.env, { fallback: fallback ?? none });
  // ctxkit/providers imports without the optional `openai` SDK; a configured provider needs it now.
  const load = providers.loadOpenAI as ((feature: string) => Promise<unknown>) | undefined;
  if (chosen.llm && typeof load === 'function') {
    try {
      await load('--llm');
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      throw new CliError(`--llm: ${missingPackageMessage(cause) ?? (e as Error).message}`);
    }
  }
  io.err(`summarizer: ${chosen.message}`);
  return chosen.summarizer;
}
