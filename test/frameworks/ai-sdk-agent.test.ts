import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSchema, type ModelMessage, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../examples/ai-sdk/agent.ts';
import type { PipelineRun } from '../../src/core/index.ts';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
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

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

describe('ctxkitPrepareStep (examples/ai-sdk)', () => {
  it('keeps the example glue at 3 lines or fewer', () => {
    const src = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'ai-sdk', 'agent.ts'), 'utf8');
    expect(
      src.split('\n').filter((l) => /ctxkit/i.test(l) && !/^\s*(\*|\/\/|\/\*\*)/.test(l)).length,
    ).toBeLessThanOrEqual(3);
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
      const model = new MockLanguageModelV3({
        provider: 'anthropic.messages',
        doGenerate: async ({ prompt }) => {
          const neutral = fromModelMessages(prompt as unknown as ModelMessage[]);
          violations.push(...promptViolations(neutral, 'anthropic', recorded));
          independent.push(...aiSdkViolations(prompt));
          prompts.push(prompt as unknown as ModelMessage[]);
          const step = replay.steps[k++];
          if (!step)
            return {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage,
              warnings: [],
            };
          const content = calls(step).map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.id,
            toolName: c.name,
            input: JSON.stringify(c.args),
          }));
          return { content, finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
        },
      });
      const tools: ToolSet = Object.fromEntries(
        replay.tools.map((name) => [
          name,
          tool({
            inputSchema: jsonSchema({ type: 'object' }),
            execute: async (_input: unknown, { toolCallId }) => replay.outputs.get(toolCallId) ?? '',
          }),
        ]),
      );
      const summarizer = countingSummarizer();
      const runs: PipelineRun[] = [];
      const agent = createAgent(model, tools, window, { summarizer, onRun: (r) => runs.push(r) });
      const [promptMessage] = toModelMessages([replay.prompt]);
      const history = [...toModelMessages(replay.history), promptMessage!];
      const result = await agent.generate({ messages: history });

      expect(result.steps.length).toBeGreaterThanOrEqual(9);
      expect(violations).toEqual([]);
      expect(independent).toEqual([]);
      // The history enters at ~97K tokens: each window takes it under its budget on the first step.
      expect(runs[0]!.estimate.before).toBeGreaterThan(window);
      // One summary per threshold crossing: each crossing is one applied compaction, and nothing else summarizes.
      const compactions = runs.filter((r) =>
        r.reports.some((x) => x.stage === 'compaction' && x.status === 'applied'),
      ).length;
      expect(summarizer.calls).toBeLessThanOrEqual(compactions);
      if (window === 32_000) expect(compactions).toBe(1);
      for (const [i, run] of runs.entries())
        expect(run.estimate.after, `step ${i}`).toBeLessThanOrEqual(window);
      // The current turn: the prompt is sent as the caller's own object every step, and each step's
      // newest call and its results reach the model as they were made.
      for (const p of prompts)
        expect(p.some((m) => JSON.stringify(m.content) === JSON.stringify(promptMessage!.content))).toBe(
          true,
        );
      for (const [i, p] of prompts.entries()) {
        if (i === 0) continue;
        const ids = calls(replay.steps[i - 1]!).map((c) => c.id);
        const sent = fromModelMessages(p).flatMap((m) => m.parts);
        for (const id of ids) {
          expect(
            sent.some((x) => x.type === 'tool-call' && x.id === id),
            `call ${id}`,
          ).toBe(true);
          const result = sent.find((x) => x.type === 'tool-result' && x.callId === id);
          expect(result?.type === 'tool-result' && JSON.stringify(result.output)).toBe(
            JSON.stringify(replay.outputs.get(id)),
          );
        }
      }
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
