import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { CtxError } from '../../../src/core/errors.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createEstimator } from '../../../src/core/pipeline/engine/estimate.ts';
import { createRecorder, runAtLevel } from '../../../src/core/pipeline/engine/runner.ts';
import { INITIAL_STATE, type Stage, type StageContext } from '../../../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../../../src/core/ports.ts';
import { createChars4Counter, memoizeCounter } from '../../../src/core/tokens/estimators.ts';

const counter = memoizeCounter(createChars4Counter());

function recorder(messages: Message[], window = 1000) {
  const budget = createBudget({
    contextWindow: window,
    reserveOutput: 0,
    warningBuffer: 300,
    autoCompactBuffer: 200,
    blockingBuffer: 100,
  });
  const context: Omit<StageContext, 'state'> = {
    counter,
    budget,
    clock: fixedClock(0),
    ids: sequentialIds(),
    summarizer: { name: 'none', summarize: async () => ({ summary: '' }) },
    excludeTools: new Set(),
    preset: 'test',
  };
  return createRecorder({
    messages,
    context,
    state: INITIAL_STATE,
    estimator: createEstimator({ counter, budget, input: messages }),
  });
}

const dropFirst: Stage = {
  name: 'drop-first',
  run(messages) {
    const [first, ...rest] = messages;
    return {
      messages: rest,
      report: { stage: 'drop-first', status: 'applied', tokensBefore: -1, tokensAfter: -1 },
      journal: first
        ? [
            {
              stage: 'drop-first',
              action: 'removed',
              messageId: first.id,
              tokensBefore: 1,
              tokensAfter: 0,
              location: 'session-log',
              recover: 'log',
            },
          ]
        : [],
      events: [],
    };
  },
};

const boom: Stage = {
  name: 'boom',
  run() {
    throw new Error('kaput');
  },
};

describe('createRecorder', () => {
  it('reports the runner estimate before and after when a stage removes a message', async () => {
    const r = recorder([user('x'.repeat(400), { id: 'u1' }), user('hello', { id: 'u2' })]);
    const report = await r.run(dropFirst);
    expect([report.tokensBefore, report.tokensAfter]).toEqual([102, 2]);
    expect(r.messages.map((m) => m.id)).toEqual(['u2']);
  });

  it('records a failed report and keeps the input when a stage throws', async () => {
    const input = [user('hi', { id: 'u1' })];
    const r = recorder(input);
    const report = await r.run(boom);
    expect([report.status, report.error]).toEqual(['failed', 'kaput']);
    expect(r.messages).toBe(input);
  });

  it('rethrows when a stage reports bad config', async () => {
    const r = recorder([user('hi')]);
    const bad: Stage = {
      name: 'bad',
      run: () => {
        throw new CtxError('invalid_config', 'nope', { path: 'x' });
      },
    };
    await expect(r.run(bad)).rejects.toThrow('x: nope');
  });

  it('records skipped when the level is below the gate', async () => {
    const r = recorder([user('hi')]);
    const report = await runAtLevel(r, dropFirst, 'warn');
    expect([report.status, report.detail]).toEqual(['skipped', 'level ok below warn']);
  });

  it('repairs what is sent and journals the repair when a call lost its result', () => {
    const r = recorder([user('q', { id: 'u1' }), assistant('', [toolCall('c1', 'grep')], { id: 'a1' })]);
    const run = r.finish('openai');
    expect(run.send.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(run.journal.map((e) => [e.action, e.messageId])).toEqual([['repaired', 'a1']]);
    expect(run.messages.length).toBe(2);
  });

  it('keeps hidden messages out of what is sent when they are archived', () => {
    const hidden = toolResult('c1', 'grep', 'old', { id: 't1', meta: { agentVisible: false } });
    const r = recorder([
      user('q', { id: 'u1' }),
      assistant('', [toolCall('c1', 'grep')], { id: 'a1' }),
      hidden,
      user('next', { id: 'u2' }),
    ]);
    const run = r.finish();
    expect(run.send.find((m) => m.id === 't1')?.meta?.kind).toBe('tool_result_stub');
  });
});
