/**
 * What every LLM summarizer does with a prompt plan once it can ask a model: one call, the family's
 * parser, 002's best-effort memory follow-up (`second-call`), the clip to the family's or the caller's
 * length, and the usage of both calls summed. Shared by `summarizerFrom` and the OpenAI summarizer of
 * `ctxkit/providers`; only `ask` (the model call) differs.
 */
import type { SummarizeRequest, SummarizeResult } from '../../ports.ts';
import { trimRunes } from '../../text/trim.ts';
import type { PromptPlan } from './types.ts';

/** One model answer to one plan. */
export interface PlanAnswer {
  text: string;
  model?: string | undefined;
  usage: { inputTokens: number; outputTokens: number };
}

/** Runs `plan` through `ask` and returns the `Summarizer` result; `ask` throws on failure. */
export async function runPromptPlan(
  plan: PromptPlan,
  request: SummarizeRequest,
  ask: (plan: PromptPlan) => Promise<PlanAnswer>,
): Promise<SummarizeResult> {
  const answer = await ask(plan);
  const parsed = plan.parse(answer.text);
  const usage = { ...answer.usage };
  if (plan.memoryFollowUp && parsed.summary !== '') {
    // 002 as documented: a second call extracts memories from the summary; best effort.
    const follow = plan.memoryFollowUp(parsed.summary);
    try {
      const second = await ask(follow);
      parsed.memories = follow.parse(second.text).memories ?? [];
      usage.inputTokens += second.usage.inputTokens;
      usage.outputTokens += second.usage.outputTokens;
    } catch (error) {
      if (request.signal?.aborted) throw error;
      parsed.memories = [];
    }
  }
  const clip = request.maxOutputChars ?? plan.maxOutputRunes;
  const result: SummarizeResult = {
    summary: clip !== undefined ? trimRunes(parsed.summary, clip) : parsed.summary,
    usage,
  };
  if (answer.model !== undefined) result.model = answer.model;
  if (parsed.memories) result.memories = parsed.memories;
  return result;
}
