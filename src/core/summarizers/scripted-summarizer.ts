/**
 * A summarizer for tests: answers from a queue (`{ summary, memories? }`, `{ error }`, `{ delayMs }`)
 * and records every request it received. Answers are returned exactly as scripted (`maxOutputChars` is
 * not applied), so tests can script a misbehaving summarizer (e.g. one whose summary inflates).
 */
import type { ExtractedMemory, SummarizeRequest, SummarizeResult, Summarizer } from '../ports.ts';

export type ScriptedAnswer =
  | { summary: string; memories?: ExtractedMemory[]; usage?: SummarizeResult['usage'] }
  | { error: string }
  /** Waits this long (honouring the request's abort signal), then answers with the next entry. */
  | { delayMs: number };

export interface ScriptedSummarizerOptions {
  answers?: readonly ScriptedAnswer[];
  /** Answer once the queue is empty; without it an empty queue throws. */
  fallback?: ScriptedAnswer;
  /** @default 'scripted' */
  name?: string;
}

export interface ScriptedSummarizer extends Summarizer {
  /** Every request received, in order. */
  readonly requests: SummarizeRequest[];
  /** Appends answers to the queue. */
  push(...answers: ScriptedAnswer[]): void;
  /** Answers still queued. */
  remaining(): number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });
}

export function createScriptedSummarizer(options: ScriptedSummarizerOptions = {}): ScriptedSummarizer {
  const queue: ScriptedAnswer[] = [...(options.answers ?? [])];
  const requests: SummarizeRequest[] = [];
  const next = (): ScriptedAnswer => {
    const a = queue.shift() ?? options.fallback;
    if (!a) throw new Error('scripted summarizer: no answer left');
    return a;
  };
  return {
    name: options.name ?? 'scripted',
    requests,
    push: (...answers) => {
      queue.push(...answers);
    },
    remaining: () => queue.length,
    async summarize(request) {
      requests.push(request);
      let answer = next();
      while ('delayMs' in answer) {
        await sleep(answer.delayMs, request.signal);
        answer = next();
      }
      if ('error' in answer) throw new Error(answer.error);
      const result: SummarizeResult = { summary: answer.summary };
      if (answer.memories) result.memories = answer.memories;
      if (answer.usage) result.usage = answer.usage;
      return result;
    },
  };
}
