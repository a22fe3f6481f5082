/**
 * bench:frameworks, Mastra rows: one Mastra Agent replays the long real Claude Code turn of the
 * frameworks tests on Mastra's mock model, once with `ctxkitProcessor` and once with Mastra's own
 * `TokenLimiterProcessor({ limit: window })` as input processor. Every prompt the model receives is
 * counted with one counter (ctxkit's calibrated default) and checked against Anthropic's rules.
 */
import { Agent } from '@mastra/core/agent';
import { TokenLimiterProcessor } from '@mastra/core/processors';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import type { ModelMessage } from 'ai';
import * as z from 'zod';
import { createPipeline } from '../../src/core/index.ts';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitProcessor } from '../../src/frameworks/mastra/index.ts';
import {
  calls,
  loadReplay,
  promptViolations,
  type Replay,
  verifiedKeys,
} from '../../test/frameworks/support/replay.ts';
import { quantile } from './ai-sdk.ts';
import { mean, type RecallScorer, recallScorer } from './recall.ts';
import type { FrameworkBenchOptions, FrameworkBenchRow } from './types.ts';

const usage = { inputTokens: 0, outputTokens: 1, totalTokens: 1 };
type AgentConfig = ConstructorParameters<typeof Agent>[0];

async function replayWith(
  replay: Replay,
  steps: number,
  window: number,
  processor: unknown,
  scorer: RecallScorer,
  clock: StepClock,
) {
  const recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
  const pipeline = createPipeline({ budget: { contextWindow: window } });
  const tokens: number[] = [];
  const recall: number[] = [];
  let violations = 0;
  let k = 0;
  const model = new MastraLanguageModelV2Mock({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }: { prompt: unknown[] }) => {
      const neutral = fromModelMessages(prompt as ModelMessage[]);
      recall.push(scorer.at(tokens.length, neutral));
      const rest = neutral.filter((m) => m.role !== 'system');
      tokens.push(pipeline.estimate({ messages: rest }).tokens);
      clock.calls++;
      violations += promptViolations(neutral, 'anthropic', recorded).length;
      const step = k < steps ? replay.steps[k++] : undefined;
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
  const agent = new Agent({
    id: 'bench',
    name: 'bench',
    instructions: 'You are a coding agent.',
    model: model as unknown as AgentConfig['model'],
    tools,
    inputProcessors: [processor as never],
  } as AgentConfig);
  const history = [
    ...toModelMessages(replay.history),
    { role: 'user', content: replay.prompt.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n') },
  ];
  await agent.generate(history as Parameters<typeof agent.generate>[0], { maxSteps: steps + 2 });
  return { tokens, violations, recall };
}

/** Model calls made so far in a replay: the step a processor hook's time is added to. */
interface StepClock {
  calls: number;
}

/**
 * A processor whose hooks are timed: `ms[k]` is the time of every hook that ran before model call k
 * (its input-step and request hooks together: the added time of step k).
 */
function timedProcessor<P extends object>(p: P, ms: number[], clock: StepClock): P {
  const hooks = ['processLLMRequest', 'processInputStep', 'processInput'] as const;
  const out = Object.create(p) as Record<string, unknown>;
  for (const h of hooks) {
    const fn = (p as Record<string, unknown>)[h];
    if (typeof fn !== 'function') continue;
    out[h] = async (...a: unknown[]) => {
      const t = performance.now();
      const r = await fn.apply(p, a);
      ms[clock.calls] = (ms[clock.calls] ?? 0) + performance.now() - t;
      return r;
    };
  }
  return out as P;
}

export async function run(opts: FrameworkBenchOptions): Promise<FrameworkBenchRow[]> {
  const replay = loadReplay(opts.steps);
  const scorer = recallScorer(replay);
  const rows: FrameworkBenchRow[] = [];
  for (const window of opts.windows) {
    const ms: number[] = [];
    const clock = { calls: 0 };
    const ctx = await replayWith(
      replay,
      opts.steps,
      window,
      timedProcessor(ctxkitProcessor({ contextWindow: window }), ms, clock),
      scorer,
      clock,
    );
    const lms: number[] = [];
    const lclock = { calls: 0 };
    const lim = await replayWith(
      replay,
      opts.steps,
      window,
      timedProcessor(new TokenLimiterProcessor({ limit: window }), lms, lclock),
      scorer,
      lclock,
    );
    for (const [tool, r, t] of [
      ['ctxkit', ctx, ms],
      ['TokenLimiterProcessor', lim, lms],
    ] as const)
      rows.push({
        framework: 'mastra',
        tool,
        window,
        steps: r.tokens.length,
        tokensSent: r.tokens.reduce((a, b) => a + b, 0) / Math.max(1, r.tokens.length),
        maxTokensSent: Math.max(...r.tokens),
        violations: r.violations,
        recall: mean(r.recall),
        addedMsP50: quantile(t.slice(0, r.tokens.length), 0.5),
        addedMsP99: quantile(t.slice(0, r.tokens.length), 0.99),
        note: `${r.tokens.filter((x) => x > window).length} prompts over the window${tool === 'ctxkit' ? '' : `; limit ${window}`}`,
      });
  }
  return rows;
}
