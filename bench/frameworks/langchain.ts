/**
 * bench:frameworks, LangChain rows: one `createAgent` replays the long real Claude Code turn of the
 * frameworks tests (test/frameworks/support/replay.ts, the same steps as the other frameworks) on a
 * fake chat model that answers with the recorded tool calls and checks every prompt against
 * Anthropic's rules, once per tool in one run: ctxkit's middleware, LangChain's
 * `summarizationMiddleware` (trigger at 80% of the window, keep 20 messages) and
 * `contextEditingMiddleware` (ClearToolUsesEdit, trigger at 80% of the window), and no middleware.
 * `summarizationMiddleware` needs a model for its summary: a fake one answering with ctxkit's
 * deterministic summarizer (the summarizer of ctxkit's row) applied to the transcript LangChain hands
 * it, so both summarising rows summarise with the same extractive summarizer. Every prompt is counted
 * with one counter (ctxkit's calibrated default). A middleware's added ms per step is the time of its own
 * hooks in that model call (the model call it wraps excluded).
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import {
  ClearToolUsesEdit,
  contextEditingMiddleware,
  createAgent,
  summarizationMiddleware,
  tool,
} from 'langchain';
import * as z from 'zod';
import { createDeterministicSummarizer, createPipeline } from '../../src/core/index.ts';
import {
  ctxkitMiddleware,
  fromLangChainMessages,
  toLangChainMessage,
} from '../../src/frameworks/langchain/index.ts';
import {
  calls,
  loadReplay,
  promptViolations,
  type Replay,
  verifiedKeys,
} from '../../test/frameworks/support/replay.ts';
import { quantile } from './ai-sdk.ts';
import { mean, recallScorer } from './recall.ts';
import type { FrameworkBenchOptions, FrameworkBenchRow } from './types.ts';

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c) => (typeof c === 'object' && c && 'text' in c ? String(c.text) : '')).join('')
      : '';

/** Answers call k with the recorded step k (its tool calls), then `done`; records every prompt. */
class ReplayChatModel extends BaseChatModel {
  readonly prompts: BaseMessage[][] = [];
  violations = 0;
  private readonly recorded: Set<string>;
  constructor(
    readonly replay: Replay,
    readonly steps: number,
  ) {
    super({});
    this.recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
  }
  _llmType() {
    return 'replay-fake';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const k = this.prompts.length;
    this.prompts.push(messages);
    this.violations += promptViolations(fromLangChainMessages(messages), 'anthropic', this.recorded).length;
    const step = k < this.steps ? this.replay.steps[k] : undefined;
    const message = step
      ? new AIMessage({
          content: '',
          tool_calls: calls(step).map((c) => ({
            id: c.id,
            name: c.name,
            args: (c.args ?? {}) as Record<string, unknown>,
            type: 'tool_call' as const,
          })),
        })
      : new AIMessage('done');
    return { generations: [{ text: text(message.content), message }] };
  }
}

/** The summary model `summarizationMiddleware` calls: ctxkit's deterministic summarizer over its transcript. */
class ExtractiveSummaryModel extends BaseChatModel {
  private readonly summarizer = createDeterministicSummarizer();
  _llmType() {
    return 'extractive-summary-fake';
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const transcript = messages.map((m) => text(m.content)).join('\n');
    const { summary } = await this.summarizer.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: [{ id: 'transcript', role: 'user', parts: [{ type: 'text', text: transcript }] }],
    });
    return { generations: [{ text: summary, message: new AIMessage(summary) }] };
  }
}

/**
 * A middleware whose own work per model call is timed: `beforeModel` and `afterModel` whole,
 * `wrapModelCall` minus the model call it wraps.
 */
function timedMiddleware<M extends object>(m: M, ms: number[]): M {
  const o = { ...m } as Record<string, unknown>;
  const add = (t: number) => {
    ms.push(t);
  };
  for (const hook of ['beforeModel', 'afterModel'] as const) {
    const h = o[hook];
    const fn = typeof h === 'function' ? h : (h as { hook?: unknown } | undefined)?.hook;
    if (typeof fn !== 'function') continue;
    const timed = async (...a: unknown[]) => {
      const t = performance.now();
      const out = await fn(...a);
      add(performance.now() - t);
      return out;
    };
    o[hook] = typeof h === 'function' ? timed : { ...(h as object), hook: timed };
  }
  const wrap = o.wrapModelCall;
  if (typeof wrap === 'function')
    o.wrapModelCall = async (request: unknown, handler: (r: unknown) => Promise<unknown>) => {
      let inner = 0;
      const t = performance.now();
      const out = await wrap(request, async (r: unknown) => {
        const u = performance.now();
        const res = await handler(r);
        inner += performance.now() - u;
        return res;
      });
      add(performance.now() - t - inner);
      return out;
    };
  return o as M;
}

function tools(window: number) {
  const trigger = Math.floor(window * 0.8);
  return {
    ctxkit: () => [ctxkitMiddleware({ budget: { contextWindow: window } })],
    summarizationMiddleware: () => [
      summarizationMiddleware({
        model: new ExtractiveSummaryModel({}),
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

/** Hook times grouped into one sum per model call (each call runs the same hooks, in order). */
function sumPerCall(ms: readonly number[], calls: number): number[] {
  const per = Math.round(ms.length / calls);
  const out: number[] = [];
  for (let i = 0; i < ms.length; i += per) out.push(ms.slice(i, i + per).reduce((a, b) => a + b, 0));
  return out;
}

export async function run(opts: FrameworkBenchOptions): Promise<FrameworkBenchRow[]> {
  const replay = loadReplay(opts.steps);
  const scorer = recallScorer(replay);
  const history = [...replay.history.filter((m) => m.role !== 'system'), replay.prompt];
  const replayTools = replay.tools.map((name) =>
    tool(
      async (_input: unknown, config: { toolCall?: { id?: string } }) => {
        const out = replay.outputs.get(config.toolCall?.id ?? '') ?? '';
        return typeof out === 'string' ? out : JSON.stringify(out);
      },
      { name, description: name, schema: z.looseObject({}) },
    ),
  );
  const rows: FrameworkBenchRow[] = [];
  for (const window of opts.windows) {
    const pipeline = createPipeline({ budget: { contextWindow: window } });
    for (const [name, middleware] of Object.entries(tools(window))) {
      const model = new ReplayChatModel(replay, opts.steps);
      const ms: number[] = [];
      const agent = createAgent({
        model,
        tools: replayTools,
        middleware: middleware().map((m) => timedMiddleware(m, ms)) as never,
      });
      let note = '';
      try {
        await (agent.invoke as (input: unknown, config: unknown) => Promise<unknown>).call(
          agent,
          { messages: history.flatMap(toLangChainMessage) },
          { recursionLimit: 4 * opts.steps + 10 },
        );
      } catch (e) {
        note = `failed: ${(e as Error).message.slice(0, 80)}`;
      }
      // One figure per model call: the middleware's hooks of that call summed.
      const perCall =
        ms.length > model.prompts.length && model.prompts.length > 0
          ? sumPerCall(ms, model.prompts.length)
          : ms;
      const sent = model.prompts.map((p) => fromLangChainMessages(p));
      const tokens = sent.map((p) => pipeline.estimate({ messages: p }).tokens);
      rows.push({
        framework: 'langchain',
        tool: name,
        window,
        steps: model.prompts.length,
        tokensSent: mean(tokens),
        maxTokensSent: Math.max(0, ...tokens),
        violations: model.violations,
        recall: mean(sent.map((p, k) => scorer.at(k, p))),
        addedMsP50: quantile(perCall, 0.5),
        addedMsP99: quantile(perCall, 0.99),
        note: note || `${tokens.filter((x) => x > window).length} prompts over the window`,
      });
    }
  }
  return rows;
}
