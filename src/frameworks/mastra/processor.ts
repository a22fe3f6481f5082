/**
 * `ctxkitProcessor({ contextWindow })`: ctxkit as a Mastra input processor.
 *
 * - `processLLMRequest` (every model call): the prompt Mastra built from the thread goes through the
 *   pipeline with the rules of the call's provider; messages no stage touched go out as Mastra's own.
 *   What was seen is recognised by content digest, so the summarizer runs once per threshold crossing
 *   although Mastra hands over the whole raw prompt each call. Mastra's stored thread is untouched: the
 *   raw history stays the recovery path.
 * - `processAPIError`: a "context too long" answer runs ctxkit's overflow recovery and asks Mastra to
 *   retry the step; the next request is built on the recovered context.
 *
 *   new Agent({ …, inputProcessors: [ctxkitProcessor({ contextWindow: 128_000 })] })
 */
import type { Processor } from '@mastra/core/processors';
import type { ModelMessage } from 'ai';
import { isContextOverflowError, type PipelineRun } from '../../core/index.ts';
import { dialectOf } from '../ai-sdk/dialect.ts';
import { DigestBridge } from '../ai-sdk/digest-bridge.ts';
import { type CtxkitAiSdkOptions, createAiSdkContext, resolveTools } from '../ai-sdk/prepare-step.ts';

export type CtxkitMastraOptions = CtxkitAiSdkOptions;

function providerOf(model: unknown): { readonly provider: string } | undefined {
  return typeof model === 'object' &&
    model !== null &&
    typeof (model as { provider?: unknown }).provider === 'string'
    ? (model as { provider: string })
    : undefined;
}

type LLMRequestPrompt = Parameters<NonNullable<Processor['processLLMRequest']>>[0]['prompt'];

/** A Mastra input processor with the two hooks ctxkit implements. */
export type CtxkitProcessor = Processor<'ctxkit'> &
  Required<Pick<Processor<'ctxkit'>, 'processLLMRequest' | 'processAPIError'>>;

export function ctxkitProcessor(options: CtxkitMastraOptions): CtxkitProcessor {
  const { context } = createAiSdkContext(options);
  const bridge = new DigestBridge();
  const ownTools = resolveTools(options.tools);
  let dialect: ReturnType<typeof dialectOf>;
  return {
    id: 'ctxkit',
    name: 'ctxkit context',
    async processLLMRequest({ prompt, model }) {
      dialect = dialectOf(providerOf(model));
      const system = (prompt as unknown as ModelMessage[])
        .filter((m) => m.role === 'system')
        .map((m) => m.content as string)
        .join('\n\n');
      const rest = (prompt as unknown as ModelMessage[]).filter((m) => m.role !== 'system');
      const { messages, back } = bridge.neutral(rest);
      const run: PipelineRun = await context.prepare(messages, {
        ...(system ? { system } : {}),
        tools: await ownTools,
        ...(dialect ? { dialect } : {}),
      });
      options.onRun?.(run);
      const systems = (prompt as unknown as ModelMessage[]).filter((m) => m.role === 'system');
      return { prompt: [...systems, ...bridge.model(run.send, back)] as unknown as LLMRequestPrompt };
    },
    async processAPIError({ error }) {
      if (!isContextOverflowError(error)) return undefined;
      const run = await context.recoverOverflow(error, dialect ? { dialect } : {});
      options.onRun?.(run);
      return { retry: run.retry };
    },
  };
}
