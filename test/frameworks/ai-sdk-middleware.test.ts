import {
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { PipelineRun } from '../../src/core/index.ts';
import { ctxkitMiddleware, fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
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
const done = {
  content: [{ type: 'text' as const, text: 'done' }],
  finishReason: { unified: 'stop' as const, raw: undefined },
  usage,
  warnings: [],
};

describe('ctxkitMiddleware', () => {
  it('retries once on the recovered context when the provider answers context too long', async () => {
    let n = 0;
    const prompts: number[] = [];
    const model = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      doGenerate: async ({ prompt }) => {
        prompts.push(JSON.stringify(prompt).length);
        if (n++ === 0)
          throw Object.assign(new Error('prompt is too long: 210000 tokens > 200000 maximum'), {
            statusCode: 400,
          });
        return done;
      },
    });
    const big = Array.from({ length: 40 }, (_, i): ModelMessage[] => [
      { role: 'user', content: `question ${i} ${'x'.repeat(2000)}` },
      { role: 'assistant', content: `answer ${i}` },
    ]).flat();
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: ctxkitMiddleware({ contextWindow: 200_000 }) }),
      messages: [...big, { role: 'user', content: 'and now?' }],
    });
    expect(result.text).toBe('done');
    expect(prompts).toHaveLength(2);
    expect(prompts[1]!).toBeLessThan(prompts[0]!);
  });

  it('prices each send with the prompt-cache rules of the model it goes to', async () => {
    const runs: PipelineRun[] = [];
    for (const [provider, modelId] of [
      ['openai.chat', 'gpt-5.6'],
      ['openai.chat', 'gpt-5'],
      ['anthropic.messages', 'claude-haiku-4-5'],
    ] as const) {
      const model = new MockLanguageModelV3({ provider, modelId, doGenerate: async () => done });
      await generateText({
        model: wrapLanguageModel({
          model,
          middleware: ctxkitMiddleware({ contextWindow: 200_000, onRun: (r) => runs.push(r) }),
        }),
        prompt: 'hi',
      });
    }
    expect(
      runs.map((r) => [r.cache.rules.write, r.cache.rules.granularity, r.cache.rules.minPrefix]),
    ).toEqual([
      [1.25, 1, 1024],
      [1, 128, 1024],
      [1.25, 1, 4096],
    ]);
  });

  it.skipIf(!HAVE_DATA)(
    'sends every prompt within the provider rules over a long real turn at 32K, one summary',
    async () => {
      const replay = loadReplay(10);
      const recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
      const violations: string[] = [];
      // The same prompts by a checker that shares no code with ctxkit (test/support/provider-rules.ts).
      const independent: string[] = [];
      let k = 0;
      const model = new MockLanguageModelV3({
        provider: 'anthropic.messages',
        doGenerate: async ({ prompt }) => {
          independent.push(...aiSdkViolations(prompt));
          violations.push(
            ...promptViolations(
              fromModelMessages(prompt as unknown as ModelMessage[]),
              'anthropic',
              recorded,
            ),
          );
          const step = replay.steps[k++];
          if (!step) return done;
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
            execute: async (_i: unknown, { toolCallId }) => replay.outputs.get(toolCallId) ?? '',
          }),
        ]),
      );
      const summarizer = countingSummarizer();
      const runs: PipelineRun[] = [];
      const wrapped = wrapLanguageModel({
        model,
        middleware: ctxkitMiddleware({ contextWindow: 32_000, summarizer, onRun: (r) => runs.push(r) }),
      });
      const result = await generateText({
        model: wrapped,
        tools,
        stopWhen: stepCountIs(15),
        messages: toModelMessages([...replay.history, replay.prompt]),
      });
      expect(result.steps.length).toBeGreaterThanOrEqual(9);
      expect(violations).toEqual([]);
      expect(independent).toEqual([]);
      const compactions = runs.filter((r) =>
        r.reports.some((x) => x.stage === 'compaction' && x.status === 'applied'),
      ).length;
      expect(compactions).toBe(1);
      expect(summarizer.calls).toBeLessThanOrEqual(compactions);
      for (const run of runs) expect(run.estimate.after).toBeLessThanOrEqual(32_000);
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
