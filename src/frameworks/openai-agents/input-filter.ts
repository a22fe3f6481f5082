/**
 * `ctxkitInputFilter(options)`: an incremental `RunConfig.callModelInputFilter`. The Agents SDK hands the
 * filter the whole run input on every model call; the filter remembers what it has taken in, reduces
 * only with what is new (so the summarizer runs once per threshold crossing, not on every call, and the
 * current step is never folded into a summary), and gives the model the caller's own items for
 * everything it left alone (`preserveInputIdentity`). The agent's tools (`agent.tools`, their JSON Schema
 * parameters) are counted in the estimate.
 *
 *   run(agent, input, { callModelInputFilter: ctxkitInputFilter({ contextWindow: 128_000 }) })
 *
 * One context per conversation: the `conversation` option's id, else the input's first item.
 */
import type { CallModelInputFilter } from '@openai/agents';
import { createContext, type IncrementalContext } from '../../core/index.ts';
import { Conversations, conversationId, conversationOption, firstMessageKey } from '../conversations.ts';
import { type CtxkitOptions, modelCall, resolveOptions } from '../options.ts';
import { fromAgentInputItems } from './from-agent-items.ts';
import { toAgentInputItems } from './to-agent-items.ts';
import { agentToolDefinitions } from './tools.ts';

/** What the filter is handed (the SDK's `CallModelInputFilter` argument). */
export type InputFilterArgs = Parameters<CallModelInputFilter>[0];

export interface CtxkitAgentsOptions extends CtxkitOptions {
  /** The agent's tools (`agent.tools`), counted: a session is not handed them; the filter counts the agent's own unless given. */
  tools?: readonly unknown[];
}

export interface CtxkitInputFilterOptions extends CtxkitAgentsOptions {
  /**
   * The id of the conversation a call belongs to, for one filter serving many runs (e.g. from the run's
   * `context`). Without it, a conversation is recognised by its first item.
   */
  conversation?: (args: InputFilterArgs) => string | number | undefined;
}

/** @deprecated the name before every entry took the same options: `CtxkitInputFilterOptions`. */
export type InputFilterOptions = CtxkitInputFilterOptions;

export function ctxkitInputFilter(filterOptions: CtxkitInputFilterOptions): CallModelInputFilter {
  const entry = 'ctxkitInputFilter';
  const { context, system: ownSystem, onRun } = resolveOptions(entry, filterOptions, ['conversation']);
  const conversationOf = conversationOption<InputFilterArgs>(entry, filterOptions.conversation);
  const ownTools = filterOptions.tools ? agentToolDefinitions(filterOptions.tools) : undefined;
  const conversations = new Conversations<IncrementalContext>(() =>
    createContext({ dialect: 'responses', ...context }),
  );
  /** The JSON definitions of an agent's tools, converted once per tools array. */
  const definitions = new WeakMap<readonly unknown[], ReturnType<typeof agentToolDefinitions>>();
  const toolsOf = (tools: readonly unknown[] | undefined) => {
    if (ownTools) return ownTools;
    if (!tools) return [];
    let d = definitions.get(tools);
    if (!d) {
      d = agentToolDefinitions(tools);
      definitions.set(tools, d);
    }
    return d;
  };
  const filter = async (args: InputFilterArgs) => {
    const { modelData, agent } = args;
    const history = fromAgentInputItems(modelData.input);
    const id = conversationId(conversationOf?.(args));
    const system = modelData.instructions ?? ownSystem;
    const tools = toolsOf((agent as { tools?: readonly unknown[] } | undefined)?.tools);
    const run = await conversations.get(id ?? firstMessageKey(history)).prepare(history, {
      ...(system !== undefined ? { system } : {}),
      tools,
      ...modelCall((agent as { model?: unknown } | undefined)?.model),
    });
    onRun?.(run);
    return { ...modelData, input: toAgentInputItems(run.send) };
  };
  return Object.assign(filter, { preserveInputIdentity: true });
}
