/**
 * `ctxkitMiddleware({ contextWindow })`: ctxkit as an AI SDK `LanguageModelMiddleware`, for code that
 * calls `generateText`/`streamText` directly or wraps a model once for many agents:
 *
 *   const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: ctxkitMiddleware({ contextWindow: 200_000 }) });
 *
 * `transformParams` runs on every call with the whole prompt; what was seen is recognised by content
 * digest, so the pipeline works on the new suffix and the summarizer runs once per threshold crossing.
 * The tool definitions of the call (JSON Schema) are counted. `wrapGenerate` retries once after a
 * "context too long" answer, on ctxkit's recovered context (a stream cannot be retried once started).
 */
import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { isContextOverflowError, type JsonValue } from '../../core/index.ts';
import { dialectOf } from './dialect.ts';
import { DigestBridge } from './digest-bridge.ts';
import { type CtxkitAiSdkOptions, createAiSdkContext, resolveTools } from './prepare-step.ts';

type Prompt = Parameters<NonNullable<LanguageModelV4Middleware['transformParams']>>[0]['params']['prompt'];

export function ctxkitMiddleware(options: CtxkitAiSdkOptions): LanguageModelV4Middleware {
  const { context } = createAiSdkContext(options);
  const bridge = new DigestBridge();
  const ownTools = resolveTools(options.tools);

  function split(prompt: Prompt) {
    const all = prompt as unknown as ModelMessage[];
    const systems = all.filter((m) => m.role === 'system');
    const system = systems.map((m) => m.content as string).join('\n\n');
    return { systems, system, rest: all.filter((m) => m.role !== 'system') };
  }

  return {
    specificationVersion: 'v4',
    async transformParams({ params, model }) {
      const { systems, system, rest } = split(params.prompt);
      const { messages, back } = bridge.neutral(rest);
      const dialect = dialectOf(model);
      const tools = (params.tools ?? []).map((t) => JSON.parse(JSON.stringify(t)) as JsonValue);
      const run = await context.prepare(messages, {
        ...(system ? { system } : {}),
        ...(tools.length > 0 ? { tools } : { tools: await ownTools }),
        ...(dialect ? { dialect } : {}),
        ...(params.abortSignal ? { signal: params.abortSignal } : {}),
      });
      options.onRun?.(run);
      return { ...params, prompt: [...systems, ...bridge.model(run.send, back)] as unknown as Prompt };
    },
    async wrapGenerate({ doGenerate, params, model }) {
      try {
        return await doGenerate();
      } catch (error) {
        if (!isContextOverflowError(error)) throw error;
        const dialect = dialectOf(model);
        const run = await context.recoverOverflow(error, dialect ? { dialect } : {});
        options.onRun?.(run);
        if (!run.retry) throw error;
        const { systems } = split(params.prompt);
        const prompt = [...systems, ...bridge.model(run.send, new Map())] as unknown as Prompt;
        return model.doGenerate({ ...params, prompt });
      }
    },
  };
}
