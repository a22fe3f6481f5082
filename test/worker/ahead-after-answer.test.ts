import { describe, expect, it } from 'vitest';
import { assistant, user } from '../../src/core/messages/builders.ts';
import type { Message } from '../../src/core/messages/types.ts';
import { createPipeline } from '../../src/core/pipeline/pipeline.ts';
import type { PipelineState } from '../../src/core/pipeline/types.ts';
import { sequentialIds } from '../../src/core/ports.ts';
import { aheadAfterAnswer, prepareAfterAnswer } from '../../src/worker/session/ahead-after-answer.ts';

const BUDGET = {
  contextWindow: 6000,
  reserveOutput: 1000,
  warningBuffer: 1500,
  autoCompactBuffer: 1000,
  blockingBuffer: 300,
};
const turn = (i: number): Message[] => {
  const words = Array.from({ length: 60 }, (_, k) => `w${(i * 7 + k) % 13}`).join(' ');
  return [
    user(`question ${i}: ${words}`, { id: `u${i}` }),
    assistant(`answer ${i}: ${words}`, [], { id: `a${i}` }),
  ];
};

describe('prepareAfterAnswer', () => {
  it('prepares the compaction on what the last pre-flight returned, once, and the next compaction uses it', async () => {
    const pipeline = aheadAfterAnswer(createPipeline({ budget: BUDGET, ids: sequentialIds() }));
    let messages: Message[] = [];
    let state: PipelineState | undefined;
    let i = 0;
    // Below warning there is nothing to prepare.
    let run = await pipeline.prepare({ messages: turn(i++) });
    expect(await prepareAfterAnswer(pipeline)).toBeUndefined();
    while (pipeline.budget.level(run.estimate.after) === 'ok') {
      messages = run.messages.concat(turn(i++));
      run = await pipeline.prepare({ messages, ...(state ? { state } : {}) });
      state = run.state;
    }
    expect((await prepareAfterAnswer(pipeline))?.status).toBe('prepared');
    // Once per pre-flight: nothing new to prepare until the next one.
    expect(await prepareAfterAnswer(pipeline)).toBeUndefined();
    let source: string | undefined;
    while (source === undefined) {
      run = await pipeline.prepare({ messages: run.messages.concat(turn(i++)), state: run.state });
      const used = run.events.find((e) => e.type === 'compaction-source');
      if (used?.type === 'compaction-source') source = used.source;
      else await prepareAfterAnswer(pipeline);
    }
    expect(source).toBe('ahead');
  });

  it('resolves to undefined for a pipeline it does not know', async () => {
    expect(await prepareAfterAnswer(createPipeline())).toBeUndefined();
    expect(await prepareAfterAnswer(undefined)).toBeUndefined();
  });
});
