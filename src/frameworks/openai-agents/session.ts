/**
 * `ctxkitSession(inner, options)`: a `Session` around any Agents SDK session that keeps the raw log
 * whole in `inner` and serves the runner ctxkit's reduced view. `addItems` appends to the raw log as
 * it is; `getItems` reads the raw log, takes it through an incremental context (only what is new is
 * reduced; untouched items come back as the stored objects) and returns what fits the window. So
 * whatever ctxkit folds or spills stays recoverable from `inner`, as the journal says.
 *
 *   run(agent, input, { session: ctxkitSession(new MemorySession(), { contextWindow: 128_000 }) })
 *
 * What it is: the runner reads a session once, when a run starts, so the view keeps what a run starts
 * from under the window, not the run's own steps (a run of many large tool results still grows past
 * it). To keep every model call of a run under the window, use `ctxkitInputFilter` (with any session,
 * which then stores the raw log).
 *
 * A server-side compaction (`replaceHistoryWithCompaction`) is appended, not replaced: its leading
 * `compaction` item becomes the replay boundary — the view starts there — while the items before it
 * stay in the raw log.
 */
import type { AgentInputItem, Session } from '@openai/agents';
import { createContext, type IncrementalContext } from '../../core/index.ts';
import { resolveOptions } from '../options.ts';
import { fromAgentInputItems } from './from-agent-items.ts';
import type { CtxkitAgentsOptions } from './input-filter.ts';
import { toAgentInputItems } from './to-agent-items.ts';
import { agentToolDefinitions } from './tools.ts';

/** Every entry's options; `system` and `tools` (the agent's) are counted, since a session is not handed them. */
export type CtxkitSessionOptions = CtxkitAgentsOptions;

export interface CtxkitSession extends Session {
  /** The session the raw log lives in. */
  readonly inner: Session;
  /** The incremental context behind `getItems` (its `state` serialises to JSON). */
  readonly context: IncrementalContext;
}

/** The items from the last `compaction` item on (the whole log when there is none). */
function fromBoundary(items: AgentInputItem[]): AgentInputItem[] {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as { type?: string };
    if (item.type === 'compaction') return items.slice(i);
  }
  return items;
}

export function ctxkitSession(inner: Session, options: CtxkitSessionOptions): CtxkitSession {
  const { context: contextOptions, system, onRun } = resolveOptions('ctxkitSession', options);
  const tools = agentToolDefinitions(options.tools);
  let context = createContext({ dialect: 'responses', ...contextOptions });
  return {
    inner,
    get context() {
      return context;
    },
    getSessionId: () => inner.getSessionId(),
    async getItems(limit?: number) {
      const raw = fromBoundary(await inner.getItems());
      if (raw.length === 0) return [];
      const run = await context.prepare(fromAgentInputItems(raw), {
        ...(system !== undefined ? { system } : {}),
        tools,
      });
      onRun?.(run);
      const view = toAgentInputItems(run.send);
      return limit !== undefined && limit >= 0 ? view.slice(Math.max(0, view.length - limit)) : view;
    },
    addItems: (items) => inner.addItems(items),
    async replaceHistoryWithCompaction(items) {
      await inner.addItems(items);
    },
    popItem: () => inner.popItem(),
    async clearSession() {
      await inner.clearSession();
      context = createContext({ dialect: 'responses', ...contextOptions });
    },
  };
}
