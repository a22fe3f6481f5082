/**
 * bench:frameworks, OpenAI Agents SDK rows: one `Agent` replays the long real Claude Code turn of the
 * frameworks tests (test/frameworks/support/replay.ts, the same steps as the other frameworks) on a
 * fake `Model` that answers with the recorded tool calls and checks every input against the Responses
 * API's rules, in one run:
 *
 * - `ctxkitInputFilter` as `callModelInputFilter`, the whole history passed as the run's input;
 * - `ctxkitSession` around a `MemorySession` holding the history, the turn's prompt as the run's input
 *   (the session reduces the history when the run starts; the run's own steps are not reduced);
 * - `none`: what the SDK does without OpenAI's server. @openai/agents 0.20 ships no client-side
 *   trimming or compaction: `OpenAIResponsesCompactionSession` calls `responses.compact` on OpenAI's
 *   server and `truncation: 'auto'` is a Responses API setting; `callModelInputFilter` and
 *   `sessionInputCallback` are hooks for the user's own code. So the whole input goes every call.
 *
 * Every input is counted with one counter (ctxkit's calibrated default, instructions included).
 */
import {
  Agent,
  type AgentInputItem,
  type CallModelInputFilter,
  MemorySession,
  type Model,
  type ModelRequest,
  run as runAgent,
  type Session,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { createPipeline, type Message } from '../../src/core/index.ts';
import {
  ctxkitInputFilter,
  ctxkitSession,
  fromAgentInputItems,
  toAgentInputItems,
} from '../../src/frameworks/openai-agents/index.ts';
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

setTracingDisabled(true);

const INSTRUCTIONS = 'You are a coding agent.';

/** Answers call k with the recorded step k (its function calls), then a message; records every input. */
class ReplayModel implements Model {
  readonly inputs: Message[][] = [];
  violations = 0;
  private readonly recorded: Set<string>;
  constructor(
    readonly replay: Replay,
    readonly steps: number,
  ) {
    this.recorded = verifiedKeys([...replay.history, replay.prompt, ...replay.steps]);
  }
  async getResponse(request: ModelRequest) {
    const input: AgentInputItem[] =
      typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
    const neutral = fromAgentInputItems(input);
    const k = this.inputs.length;
    this.inputs.push(neutral);
    this.violations += promptViolations(neutral, 'responses', this.recorded).length;
    const step = k < this.steps ? this.replay.steps[k] : undefined;
    const output = step
      ? calls(step).map((c) => ({
          type: 'function_call' as const,
          callId: c.id,
          name: c.name,
          arguments: JSON.stringify(c.args ?? {}),
          status: 'completed' as const,
        }))
      : [
          {
            type: 'message' as const,
            role: 'assistant' as const,
            status: 'completed' as const,
            content: [{ type: 'output_text' as const, text: 'done' }],
          },
        ];
    return { usage: new Usage(), output };
  }
  // biome-ignore lint/correctness/useYield: the bench runs without streaming
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the bench model does not stream');
  }
}

function timedFilter(filter: CallModelInputFilter, ms: number[]): CallModelInputFilter {
  const timed = async (a: Parameters<CallModelInputFilter>[0]) => {
    const t = performance.now();
    const out = await filter(a);
    ms.push(performance.now() - t);
    return out;
  };
  return Object.assign(timed, { preserveInputIdentity: filter.preserveInputIdentity === true });
}

function timedSession(session: Session, ms: number[]): Session {
  return Object.assign(Object.create(session) as Session, {
    getItems: async (limit?: number) => {
      const t = performance.now();
      const out = await session.getItems(limit);
      ms.push(performance.now() - t);
      return out;
    },
  });
}

const promptText = (m: Message) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

async function replayAll(opts: FrameworkBenchOptions, replay: Replay, window: number) {
  const history = replay.history.filter((m) => m.role !== 'system');
  const tools = replay.tools.map((name) =>
    tool({
      name,
      description: name,
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async (_input, _ctx, details) => {
        const out = replay.outputs.get(details?.toolCall?.callId ?? '') ?? '';
        return typeof out === 'string' ? out : JSON.stringify(out);
      },
    }),
  );
  const go = async (setup: (model: ReplayModel) => Promise<{ ms: number[] }>) => {
    const model = new ReplayModel(replay, opts.steps);
    const { ms } = await setup(model);
    return { model, ms };
  };
  const agentOf = (model: ReplayModel) =>
    new Agent({ name: 'bench', instructions: INSTRUCTIONS, model, tools });
  const maxTurns = opts.steps + 5;
  return {
    ctxkitInputFilter: await go(async (model) => {
      const ms: number[] = [];
      await runAgent(agentOf(model), toAgentInputItems([...history, replay.prompt]), {
        maxTurns,
        callModelInputFilter: timedFilter(ctxkitInputFilter({ budget: { contextWindow: window } }), ms),
      });
      return { ms };
    }),
    ctxkitSession: await go(async (model) => {
      const ms: number[] = [];
      const inner = new MemorySession();
      await inner.addItems(toAgentInputItems(history));
      const session = ctxkitSession(inner, { budget: { contextWindow: window }, system: INSTRUCTIONS });
      await runAgent(agentOf(model), promptText(replay.prompt), {
        maxTurns,
        session: timedSession(session, ms),
      });
      return { ms };
    }),
    none: await go(async (model) => {
      await runAgent(agentOf(model), toAgentInputItems([...history, replay.prompt]), { maxTurns });
      return { ms: [] };
    }),
  };
}

export async function run(opts: FrameworkBenchOptions): Promise<FrameworkBenchRow[]> {
  const replay = loadReplay(opts.steps);
  const scorer = recallScorer(replay);
  const rows: FrameworkBenchRow[] = [];
  for (const window of opts.windows) {
    const pipeline = createPipeline({ budget: { contextWindow: window } });
    for (const [name, { model, ms }] of Object.entries(await replayAll(opts, replay, window))) {
      const tokens = model.inputs.map((p) => pipeline.estimate({ messages: p, system: INSTRUCTIONS }).tokens);
      rows.push({
        framework: 'openai-agents',
        tool: name,
        window,
        steps: model.inputs.length,
        tokensSent: mean(tokens),
        maxTokensSent: Math.max(0, ...tokens),
        violations: model.violations,
        recall: mean(model.inputs.map((p, k) => scorer.at(k, p))),
        addedMsP50: quantile(ms, 0.5),
        addedMsP99: quantile(ms, 0.99),
        note: `${tokens.filter((x) => x > window).length} prompts over the window${
          name === 'ctxkitSession'
            ? '; the history is reduced when the run starts, the run’s own steps are not'
            : name === 'none'
              ? '; the SDK has no client-side trimming (compaction is server-side)'
              : ''
        }`,
      });
    }
  }
  return rows;
}
