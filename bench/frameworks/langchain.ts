/**
 * bench:frameworks, LangChain rows: the example agent (examples/langchain/agent.ts: a createAgent on a
 * fake chat model that checks every prompt against Anthropic's rules) runs 10 tool steps after the long
 * real Claude Code session, once per tool in one run: ctxkit's middleware, LangChain's
 * `summarizationMiddleware` (trigger at 80% of the window, keep 20 messages, summaries from a fake model)
 * and `contextEditingMiddleware` (ClearToolUsesEdit, trigger at 80% of the window), and no middleware.
 * Every prompt is counted with one counter (ctxkit's calibrated default). ctxkit's added ms per step is
 * its run's time per step minus the no-middleware run's.
 */
import { HumanMessage } from '@langchain/core/messages';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ClearToolUsesEdit, contextEditingMiddleware, createAgent, summarizationMiddleware } from 'langchain';
import { RuleCheckingModel, readFile } from '../../examples/langchain/agent.ts';
import { createPipeline } from '../../src/core/index.ts';
import {
  ctxkitMiddleware,
  fromLangChainMessages,
  toLangChainMessage,
} from '../../src/frameworks/langchain/index.ts';
import { loadTrajectory } from '../../test/support/trajectories.ts';
import type { FrameworkBenchOptions, FrameworkBenchRow } from './types.ts';

const SESSION = 'claude-code/258c7280-ae70-4798-800f-63464d01a85d.json';

function tools(window: number) {
  const trigger = Math.floor(window * 0.8);
  return {
    ctxkit: () => [ctxkitMiddleware({ budget: { contextWindow: window } })],
    summarizationMiddleware: () => [
      summarizationMiddleware({
        model: new FakeListChatModel({ responses: ['Summary of the earlier conversation.'] }),
        trigger: { tokens: trigger },
        keep: { messages: 20 },
      } as never),
    ],
    contextEditingMiddleware: () => [
      contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: trigger } })] }),
    ],
    none: () => [],
  };
}

export async function run(opts: FrameworkBenchOptions): Promise<FrameworkBenchRow[]> {
  const neutral = loadTrajectory(SESSION).messages;
  const steps = Math.max(8, opts.steps);
  const rows: FrameworkBenchRow[] = [];
  for (const window of opts.windows) {
    const pipeline = createPipeline({ budget: { contextWindow: window } });
    const perStep = new Map<string, number>();
    for (const [tool, middleware] of Object.entries(tools(window))) {
      const history = neutral.filter((m) => m.role !== 'system').flatMap(toLangChainMessage);
      const model = new RuleCheckingModel(steps);
      const agent = createAgent({ model, tools: [readFile], middleware: middleware() as never });
      const started = performance.now();
      let note = '';
      try {
        await (agent.invoke as (input: unknown, config: unknown) => Promise<unknown>).call(
          agent,
          { messages: [...history, new HumanMessage('Now read every part.')] },
          { recursionLimit: 4 * steps },
        );
      } catch (e) {
        note = `failed: ${(e as Error).message.slice(0, 80)}`;
      }
      perStep.set(tool, (performance.now() - started) / Math.max(1, model.calls));
      const tokens = model.prompts.map(
        (p) => pipeline.estimate({ messages: fromLangChainMessages(p) }).tokens,
      );
      rows.push({
        framework: 'langchain',
        tool,
        window,
        steps: model.calls,
        tokensSent: tokens.reduce((a, b) => a + b, 0) / Math.max(1, tokens.length),
        maxTokensSent: Math.max(0, ...tokens),
        violations: model.violations.length,
        addedMsP50: 0,
        addedMsP99: 0,
        note: note || (tool === 'ctxkit' ? 'added ms: per-step time minus the no-middleware run' : ''),
      });
    }
    const ctx = rows.find((r) => r.window === window && r.tool === 'ctxkit');
    if (ctx) {
      const added = (perStep.get('ctxkit') ?? 0) - (perStep.get('none') ?? 0);
      ctx.addedMsP50 = added;
      ctx.addedMsP99 = added;
    }
  }
  return rows;
}
