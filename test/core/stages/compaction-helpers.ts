/** Test helpers of the compaction family: a stage context, deep-freeze, conversation builders. */
import { createBudget } from '../../../src/core/budget/budget.ts';
import { checkInvariants } from '../../../src/core/invariants/check.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { INITIAL_STATE, type PipelineState, type StageContext } from '../../../src/core/pipeline/types.ts';
import { fixedClock, type Summarizer, sequentialIds, type TokenCounter } from '../../../src/core/ports.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';

export function makeCtx(
  overrides: Partial<StageContext> & { summarizer?: Summarizer; counter?: TokenCounter } = {},
): StageContext {
  return {
    counter: createChars4Counter({ unit: 'chars' }),
    budget: createBudget(),
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
    summarizer: createScriptedSummarizer({ fallback: { summary: 'SUMMARY' } }),
    excludeTools: new Set(),
    state: INITIAL_STATE,
    preset: 'default',
    ...overrides,
  };
}

export function withState(ctx: StageContext, state: Partial<PipelineState>): StageContext {
  return { ...ctx, state: { ...ctx.state, ...state } };
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/**
 * `n` turns: `user(q{i})`, then (with `tools`) an assistant call + its result, then `assistant(a{i})`.
 * Ids are `u{i}`, `c{i}`, `r{i}`, `a{i}`.
 */
export function conversation(
  n: number,
  options: { tools?: boolean; pad?: number; tool?: string } = {},
): Message[] {
  const pad = 'x'.repeat(options.pad ?? 0);
  const out: Message[] = [];
  for (let i = 1; i <= n; i++) {
    out.push(user(`question ${i} about src/file${i}.ts ${pad}`, { id: `u${i}` }));
    if (options.tools) {
      out.push(
        assistant('', [toolCall(`call${i}`, options.tool ?? 'read_file', { path: `src/file${i}.ts` })], {
          id: `c${i}`,
        }),
      );
      out.push(
        toolResult(`call${i}`, options.tool ?? 'read_file', `content of file ${i} ${pad}`, { id: `r${i}` }),
      );
    }
    out.push(assistant(`answer ${i} ${pad}`, [], { id: `a${i}` }));
  }
  return out;
}

export function ids(messages: readonly Message[]): string[] {
  return messages.map((m) => m.id);
}

export function violations(after: readonly Message[], before: readonly Message[]): string[] {
  return checkInvariants(after, { before }).map((v) => `${v.rule}@${v.messageId}`);
}
