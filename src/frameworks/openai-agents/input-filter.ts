/**
 * `ctxkitInputFilter(options)`: an incremental `RunConfig.callModelInputFilter`. The Agents SDK hands the
 * filter the whole run input on every model call; the filter remembers what it has taken in, reduces
 * only with what is new (so the summarizer runs once per threshold crossing, not on every call, and the
 * current step is never folded into a summary), and gives the model the caller's own items for
 * everything it left alone (`preserveInputIdentity`). The agent's tools (`agent.tools`, their JSON Schema
 * parameters) are counted in the estimate.
 *
 *   run(agent, input, { callModelInputFilter: ctxkitInputFilter({ budget: { contextWindow: 128_000 } }) })
 */
import type { CallModelInputFilter } from '@openai/agents';
import { type ContextOptions, type ContextRun, createContext } from '../../core/index.ts';
import { fromAgentInputItems } from './from-agent-items.ts';
import { toAgentInputItems } from './to-agent-items.ts';
import { agentToolDefinitions } from './tools.ts';

export type InputFilterOptions = ContextOptions & {
  /** Called with every run (reports, journal, estimate before and after). */
  onRun?: (run: ContextRun) => void;
};

export function ctxkitInputFilter(filterOptions: InputFilterOptions = {}): CallModelInputFilter {
  const { onRun, ...options } = filterOptions;
  const context = createContext({ dialect: 'responses', ...options });
  /** The JSON definitions of an agent's tools, converted once per tools array. */
  const definitions = new WeakMap<readonly unknown[], ReturnType<typeof agentToolDefinitions>>();
  const toolsOf = (tools: readonly unknown[] | undefined) => {
    if (!tools) return [];
    let d = definitions.get(tools);
    if (!d) {
      d = agentToolDefinitions(tools);
      definitions.set(tools, d);
    }
    return d;
  };
  const filter = async ({ modelData, agent }: Parameters<CallModelInputFilter>[0]) => {
    const history = fromAgentInputItems(modelData.input);
    const system = modelData.instructions;
    const tools = toolsOf((agent as { tools?: readonly unknown[] } | undefined)?.tools);
    const run = await context.prepare(history, { ...(system !== undefined ? { system } : {}), tools });
    onRun?.(run);
    return { ...modelData, input: toAgentInputItems(run.send) };
  };
  return Object.assign(filter, { preserveInputIdentity: true });
}
