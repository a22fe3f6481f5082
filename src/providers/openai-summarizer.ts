/**
 * A `Summarizer` over any OpenAI-compatible Chat Completions endpoint, through the `openai` SDK.
 * Plain `chat.completions.create`, no `tools` parameter; one call per request; the prompt family
 * comes from the request's purpose and preset (the core's prompts). Faults become
 * `CtxError('provider_error')`, which stages report as `failed` (the call itself: openai-chat.ts). The SDK is imported on the first
 * `summarize` (`loadOpenAI`): without `openai` installed that call fails with
 * `CtxError('unsupported')` naming the package.
 */
import {
  buildPrompt,
  runPromptPlan,
  type SummarizeRequest,
  type SummarizeResult,
  type Summarizer,
} from '../core/index.ts';
import { createOpenAIChat } from './openai-chat.ts';
import type { OpenAISummarizerOptions } from './options.ts';

/** Model chosen for a request: the primary for `manual-compact`, else the summarization model. */
export function modelFor(
  purpose: SummarizeRequest['purpose'],
  options: Pick<OpenAISummarizerOptions, 'model' | 'summarizationModel'>,
): string {
  return purpose === 'manual-compact' ? options.model : (options.summarizationModel ?? options.model);
}

export function createOpenAISummarizer(options: OpenAISummarizerOptions): Summarizer {
  const chat = createOpenAIChat(options, 'createOpenAISummarizer');
  const o = chat.options;
  return {
    name: o.name,
    summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const plan = buildPrompt(request, { memoryExtraction: o.memoryExtraction });
      const model = modelFor(request.purpose, o);
      return runPromptPlan(plan, request, async (p) => {
        const answer = await chat.complete(p, model, request.signal);
        return { text: answer.text, model: answer.model ?? model, usage: answer.usage! };
      });
    },
  };
}
