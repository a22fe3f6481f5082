/** Test helpers for the cheap stages: a stage context with fakes, and deep-freezing of inputs. */
import { createBudget } from '../../../src/core/budget/budget.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { INITIAL_STATE, type StageContext } from '../../../src/core/pipeline/types.ts';
import {
  type BlobStore,
  fixedClock,
  type SummarizeRequest,
  type Summarizer,
  sequentialIds,
} from '../../../src/core/ports.ts';
import { createKosmokratorCounter, memoizeCounter } from '../../../src/core/tokens/estimators.ts';

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

export function frozen(messages: Message[]): readonly Message[] {
  return deepFreeze(messages);
}

/** A summarizer that answers from a function and records the requests. */
export function fakeSummarizer(answer: (r: SummarizeRequest) => string | Promise<string> = () => 'summary') {
  const requests: SummarizeRequest[] = [];
  const summarizer: Summarizer = {
    name: 'fake',
    async summarize(request) {
      requests.push(request);
      return { summary: await answer(request) };
    },
  };
  return { summarizer, requests };
}

export function makeCtx(overrides: Partial<StageContext> & { blobs?: BlobStore } = {}): StageContext {
  return {
    counter: memoizeCounter(createKosmokratorCounter()),
    budget: createBudget(),
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
    summarizer: fakeSummarizer().summarizer,
    excludeTools: new Set(),
    state: INITIAL_STATE,
    preset: 'default',
    ...overrides,
  };
}

/**
 * A stage context whose memoized counter counts the messages it could not answer from its memo
 * (`calls()`): a test of what a stage makes ahead checks that the step counts none of it again.
 */
export function countingCtx(): { ctx: StageContext; calls: () => number } {
  let calls = 0;
  const inner = createKosmokratorCounter();
  const counter = memoizeCounter({
    ...inner,
    countMessage: (m) => {
      calls++;
      return inner.countMessage(m);
    },
  });
  return { ctx: makeCtx({ counter }), calls: () => calls };
}

/** Output text of the first tool-result part of a message. */
export function out(message: Message | undefined): string {
  const part = message?.parts.find((p) => p.type === 'tool-result');
  if (part?.type !== 'tool-result') throw new Error('no tool result');
  return typeof part.output === 'string' ? part.output : JSON.stringify(part.output);
}
