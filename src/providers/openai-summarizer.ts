/**
 * A `Summarizer` over any OpenAI-compatible Chat Completions endpoint, through the `openai` SDK.
 * Plain `chat.completions.create`, no `tools` parameter; one call per request; the prompt family
 * comes from the request's purpose and preset (the core's prompts). With `prefix: 'cached'`, a
 * compaction's summary is asked on the agent's last send instead: its messages, its tool schemas with
 * tool choice `none`, the agent's model, then the instruction. Faults become
 * `CtxError('provider_error')`, which stages report as `failed` (the call itself: openai-chat.ts). The SDK is imported on the first
 * `summarize` (`loadOpenAI`): without `openai` installed that call fails with
 * `CtxError('unsupported')` naming the package.
 */
import {
  buildPrompt,
  CACHED_PREFIX_FAMILY,
  runPromptPlan,
  type SummarizeRequest,
  type SummarizeResult,
  type Summarizer,
  type ToolDefinition,
} from '../core/index.ts';
import { type ChatPlan, createOpenAIChat } from './openai-chat.ts';
import type { OpenAISummarizerOptions } from './options.ts';

/** Model chosen for a request: the primary for `manual-compact`, else the summarization model. */
export function modelFor(
  purpose: SummarizeRequest['purpose'],
  options: Pick<OpenAISummarizerOptions, 'model' | 'summarizationModel'>,
): string {
  return purpose === 'manual-compact' ? options.model : (options.summarizationModel ?? options.model);
}

/** A tool schema in Chat Completions form: ctxkit's neutral `{ name, description, parameters }` wrapped as a function. */
function chatTool(tool: ToolDefinition): ToolDefinition {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) return tool;
  if ('type' in tool || !('name' in tool)) return tool;
  return { type: 'function', function: tool };
}

export function createOpenAISummarizer(options: OpenAISummarizerOptions): Summarizer {
  const chat = createOpenAIChat(options, 'createOpenAISummarizer');
  const o = chat.options;
  const summarizer: Summarizer = {
    name: o.name,
    summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      // The pipeline offers the last send only to a summarizer set to read it; a direct caller's is set aside too.
      let asked = request;
      if (o.prefix !== 'cached' && request.sent !== undefined) {
        const { sent: _sent, ...rest } = request;
        asked = rest;
      }
      const plan = buildPrompt(asked, { memoryExtraction: o.memoryExtraction });
      const sent = plan.family === CACHED_PREFIX_FAMILY ? asked.sent : undefined;
      // A cache belongs to one model: a summary asked on the agent's send goes to the agent's model.
      const model = sent ? o.model : modelFor(asked.purpose, o);
      return runPromptPlan(plan, asked, async (p) => {
        const call: ChatPlan = { ...p };
        if (sent?.tools) call.tools = sent.tools.map(chatTool);
        if (sent && o.promptCacheKey !== undefined) call.promptCacheKey = o.promptCacheKey;
        const answer = await chat.complete(call, model, asked.signal);
        return { text: answer.text, model: answer.model ?? model, usage: answer.usage! };
      });
    },
  };
  return o.prefix === 'cached' ? { ...summarizer, prefix: 'cached' } : summarizer;
}
