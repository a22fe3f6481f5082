/**
 * bench:frameworks, AI SDK rows: one ToolLoopAgent replays the long real Claude Code turn of the
 * frameworks tests (test/frameworks/support/replay.ts) on MockLanguageModelV3, once with
 * `ctxkitPrepareStep` and once with the SDK's `pruneMessages` in `prepareStep` (its documented use:
 * drop reasoning and tool calls before the last messages). Every prompt the model receives is counted
 * with one counter (ctxkit's calibrated default) and checked against Anthropic's rules.
 */
import {
  jsonSchema,
  type ModelMessage,
  type PrepareStepFunction,
  pruneMessages,
  stepCountIs,
  ToolLoopAgent,
  type ToolSet,
  tool,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createPipeline } from '../../src/core/index.ts';
import { ctxkitPrepareStep, fromModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import {
  calls,
  loadReplay,
  promptViolations,
  type Replay,
  verifiedKeys,
} from '../../test/frameworks/support/replay.ts';
import { mean, type RecallScorer, recallScorer } from './recall.ts';
import type { FrameworkBenchOptions, FrameworkBenchRow } from './types.ts';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

async function replayWith(
  replay: Replay,
  steps: number,
  window: number,
  prepareStep: PrepareStepFunction,
  scorer: RecallScorer,
) {
  const recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
  const pipeline = createPipeline({ budget: { contextWindow: window } });
  const tokens: number[] = [];
  const recall: number[] = [];
  let violations = 0;
  let k = 0;
  const model = new MockLanguageModelV3({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }) => {
      const neutral = fromModelMessages(prompt as unknown as ModelMessage[]);
      recall.push(scorer.at(tokens.length, neutral));
      const system = neutral.filter((m) => m.role === 'system');
      const rest = neutral.filter((m) => m.role !== 'system');
      tokens.push(
        pipeline.estimate({
          messages: rest,
          system: system.map((m) => (m.parts[0] as { text: string }).text).join('\n'),
        }).tokens,
      );
      violations += promptViolations(neutral, 'anthropic', recorded).length;
      const step = k < steps ? replay.steps[k++] : undefined;
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
        execute: async (_i: unknown, { toolCallId }) => replay.outputs.get(toolCallId) ?? '',
      }),
    ]),
  );
  const agent = new ToolLoopAgent({
    model,
    tools,
    stopWhen: stepCountIs(steps + 2),
    prepareStep: prepareStep as never,
  });
  const { toModelMessages } = await import('../../src/frameworks/ai-sdk/index.ts');
  await agent.generate({ messages: toModelMessages([...replay.history, replay.prompt]) });
  return { tokens, violations, recall };
}

export function timed<T extends (...a: never[]) => unknown>(fn: T, ms: number[]): T {
  return (async (...a: Parameters<T>) => {
    const t = performance.now();
    const out = await fn(...a);
    ms.push(performance.now() - t);
    return out;
  }) as T;
}

export async function run(opts: FrameworkBenchOptions): Promise<FrameworkBenchRow[]> {
  const replay = loadReplay(opts.steps);
  const scorer = recallScorer(replay);
  const rows: FrameworkBenchRow[] = [];
  for (const window of opts.windows) {
    const ms: number[] = [];
    const ctx = await replayWith(
      replay,
      opts.steps,
      window,
      timed(ctxkitPrepareStep({ contextWindow: window }), ms) as PrepareStepFunction,
      scorer,
    );
    const pms: number[] = [];
    const prune = await replayWith(
      replay,
      opts.steps,
      window,
      timed(
        (({ messages }: { messages: ModelMessage[] }) => ({
          messages: pruneMessages({
            messages,
            reasoning: 'before-last-message',
            toolCalls: 'before-last-2-messages',
            emptyMessages: 'remove',
          }),
        })) as never,
        pms,
      ) as PrepareStepFunction,
      scorer,
    );
    for (const [tool, r, t, note] of [
      ['ctxkit', ctx, ms, ''],
      ['pruneMessages', prune, pms, "reasoning 'before-last-message', toolCalls 'before-last-2-messages'"],
    ] as const)
      rows.push({
        framework: 'ai-sdk',
        tool,
        window,
        steps: r.tokens.length,
        tokensSent: r.tokens.reduce((a, b) => a + b, 0) / Math.max(1, r.tokens.length),
        maxTokensSent: Math.max(...r.tokens),
        violations: r.violations,
        recall: mean(r.recall),
        addedMsP50: quantile(t, 0.5),
        addedMsP99: quantile(t, 0.99),
        note: `${r.tokens.filter((x) => x > window).length} prompts over the window; ${replay.name.slice(0, 8)}, ${replay.history.length + 1} messages before the turn${note ? `; ${note}` : ''}`,
      });
  }
  return rows;
}
