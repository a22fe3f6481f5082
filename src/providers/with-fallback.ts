/**
 * `withFallback(primary, fallback)`: a failing primary (timeout, provider error, empty answer) is
 * answered by the fallback, and the failure is recorded in the result's `model`
 * (`deterministic (fallback: HTTP 500 …)`) so that the journal shows it.
 *
 * The wrapped summarizer never throws for a primary failure, so a stage's circuit breaker does not
 * see it: use the bare LLM summarizer inside the pipeline (failure → `failed` report → breaker →
 * the stage's own deterministic fallback) and `withFallback` for one-shot callers without a breaker
 * (`ctxcheck compact --llm`), or pass `onFailure` to count failures yourself.
 */
import type { SummarizeRequest, SummarizeResult, Summarizer } from '../core/index.ts';

export interface WithFallbackOptions {
  /** Called with the primary's error before the fallback runs. */
  onFailure?: (error: unknown, request: SummarizeRequest) => void;
  /** Characters of the failure reason kept in `model`. @default 200 */
  maxReasonChars?: number;
}

export function withFallback(
  primary: Summarizer,
  fallback: Summarizer,
  options: WithFallbackOptions = {},
): Summarizer {
  const maxReason = options.maxReasonChars ?? 200;
  const wrapped: Summarizer = {
    name: `${primary.name}|${fallback.name}`,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      try {
        return await primary.summarize(request);
      } catch (error) {
        // The caller gave up: do not answer anyway.
        if (request.signal?.aborted) throw error;
        options.onFailure?.(error, request);
        const reason = (error instanceof Error ? error.message : String(error))
          .replace(/\s+/g, ' ')
          .slice(0, maxReason);
        const result = await fallback.summarize(request);
        return {
          ...result,
          model: `${result.model ?? fallback.name} (fallback: ${reason})`,
          fallback: `${primary.name}: ${reason}`,
        };
      }
    },
  };
  // The primary's wish to be asked on the agent's last send holds (the fallback reads `messages`).
  return primary.prefix === 'cached' ? { ...wrapped, prefix: 'cached' } : wrapped;
}
