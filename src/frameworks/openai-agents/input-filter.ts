/**
 * `ctxkitInputFilter(options)`: an incremental `RunConfig.callModelInputFilter`. The Agents SDK hands the
 * filter the whole run input on every model call; the filter remembers what it has taken in, reduces
 * only with what is new (so the summarizer runs once per threshold crossing, not on every call, and the
 * current step is never folded into a summary), and gives the model the caller's own items for
 * everything it left alone (`preserveInputIdentity`).
 *
 *   run(agent, input, { callModelInputFilter: ctxkitInputFilter({ budget: { contextWindow: 128_000 } }) })
 */
import type { CallModelInputFilter } from '@openai/agents';
import { type ContextOptions, createContext } from '../../core/index.ts';
import { fromAgentInputItems } from './from-agent-items.ts';
import { toAgentInputItems } from './to-agent-items.ts';

export type InputFilterOptions = ContextOptions;

export function ctxkitInputFilter(options: InputFilterOptions = {}): CallModelInputFilter {
  const context = createContext({ dialect: 'responses', ...options });
  const filter = async ({ modelData }: Parameters<CallModelInputFilter>[0]) => {
    const history = fromAgentInputItems(modelData.input);
    const system = modelData.instructions;
    const run = await context.prepare(history, system !== undefined ? { system } : {});
    return { ...modelData, input: toAgentInputItems(run.send) };
  };
  return Object.assign(filter, { preserveInputIdentity: true });
}
