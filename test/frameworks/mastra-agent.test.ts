import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createAgent } from '../../examples/mastra/agent.ts';
import type { PipelineRun } from '../../src/core/index.ts';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitProcessor } from '../../src/frameworks/mastra/index.ts';
import { aiSdkViolations } from '../support/provider-rules.ts';
import {
  calls,
  countingSummarizer,
  HAVE_DATA,
  loadReplay,
  NO_DATA,
  promptViolations,
  verifiedKeys,
} from './support/replay.ts';

const usage = { inputTokens: 0, outputTokens: 1, totalTokens: 1 };
type Model = Parameters<typeof createAgent>[0];

describe('ctxkitProcessor (examples/mastra)', () => {
  it('keeps the example glue at 3 lines or fewer', () => {
    const src = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'mastra', 'agent.ts'), 'utf8');
    expect(
      src.split('\n').filter((l) => /ctxkit/i.test(l) && !/^\s*(\*|\/\/|\/\*\*)/.test(l)).length,
    ).toBeLessThanOrEqual(3);
  });

  it('passes the message list through in Mastra 1 and throws naming @mastra/core 1.x when Mastra 0.x calls processInput', () => {
    const p = ctxkitProcessor({ contextWindow: 32_000 });
    const messageList = {};
    expect(p.processInput({ messages: [], messageList, state: {} } as never)).toBe(messageList);
    // Mastra 0.x hands processInput { messages, abort, tracingContext } and skips a processor without it.
    expect(() => p.processInput({ messages: [], abort: () => {} } as never)).toThrow(
      /ctxkitProcessor needs @mastra\/core 1\.x/,
    );
  });

  it('asks Mastra to retry after a context overflow and not after another error', async () => {
    const p = ctxkitProcessor({ contextWindow: 32_000 });
    await p.processLLMRequest({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    } as never);
    expect(await p.processAPIError({ error: new Error('socket hang up') } as never)).toBeUndefined();
    const overflow = Object.assign(new Error('prompt is too long: 250000 tokens > 200000 maximum'), {
      status: 400,
    });
    expect(await p.processAPIError({ error: overflow } as never)).toHaveProperty('retry');
  });

  it.skipIf(!HAVE_DATA).each([64_000, 32_000])(
    'sends every prompt within the provider rules over a long real turn when the window is %i',
    async (window) => {
      const replay = loadReplay(10);
      const recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
      const violations: string[] = [];
      // The same prompts by a checker that shares no code with ctxkit (test/support/provider-rules.ts).
      const independent: string[] = [];
      const prompts: ModelMessage[][] = [];
      let k = 0;
      const model = new MastraLanguageModelV2Mock({
        provider: 'anthropic.messages',
        doGenerate: async ({ prompt }: { prompt: unknown[] }) => {
          const neutral = fromModelMessages(prompt as ModelMessage[]);
          violations.push(...promptViolations(neutral, 'anthropic', recorded));
          independent.push(...aiSdkViolations(prompt));
          prompts.push(prompt as ModelMessage[]);
          const step = replay.steps[k++];
          if (!step)
            return { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] };
          const content = calls(step).map((c) => ({
            type: 'tool-call',
            toolCallId: c.id,
            toolName: c.name,
            input: JSON.stringify(c.args),
          }));
          return { content, finishReason: 'tool-calls', usage, warnings: [] };
        },
      } as ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]);
      const tools = Object.fromEntries(
        replay.tools.map((name) => [
          name,
          createTool({
            id: name,
            description: name,
            inputSchema: z.looseObject({}),
            execute: async (_input, ctx) => replay.outputs.get(ctx?.agent?.toolCallId ?? '') ?? '',
          }),
        ]),
      );
      const summarizer = countingSummarizer();
      const runs: PipelineRun[] = [];
      const agent = createAgent(model as unknown as Model, tools, window, {
        summarizer,
        onRun: (r) => runs.push(r),
      });
      // The history in the AI SDK's message form, which Mastra takes as input (tool steps included).
      const history = toModelMessages(replay.history);
      const promptText = replay.prompt.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      const result = await agent.generate([...history, { role: 'user', content: promptText }], {
        maxSteps: 20,
      });

      expect(result.steps.length).toBeGreaterThanOrEqual(9);
      expect(violations).toEqual([]);
      expect(independent).toEqual([]);
      expect(runs[0]!.estimate.before).toBeGreaterThan(window);
      // One summary per threshold crossing: each crossing is one applied compaction, and nothing else summarizes.
      const compactions = runs.filter((r) =>
        r.reports.some((x) => x.stage === 'compaction' && x.status === 'applied'),
      ).length;
      expect(summarizer.calls).toBeLessThanOrEqual(compactions);
      if (window === 32_000) expect(compactions).toBe(1);
      for (const [i, run] of runs.entries())
        expect(run.estimate.after, `step ${i}`).toBeLessThanOrEqual(window);
      for (const [i, p] of prompts.entries()) {
        if (i === 0) continue;
        const sent = fromModelMessages(p).flatMap((m) => m.parts);
        for (const c of calls(replay.steps[i - 1]!)) {
          expect(
            sent.some((x) => x.type === 'tool-call' && x.id === c.id),
            `call ${c.id}`,
          ).toBe(true);
          expect(
            sent.some((x) => x.type === 'tool-result' && x.callId === c.id),
            `result ${c.id}`,
          ).toBe(true);
        }
        expect(JSON.stringify(p)).toContain(JSON.stringify(promptText).slice(1, 200));
      }
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
