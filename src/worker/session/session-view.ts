/**
 * What the context view of a session draws (`GET /v1/sessions/:session/view` and the page): the
 * window the agent sees now split by category against the levels — the same estimate as `stats` —
 * and the timeline of its calls (the proxy's, and the `prepare`, `compact` and `overflow` routes' runs)
 * with tokens before/after, stage reports and journal sizes.
 */
import type { SessionInfo } from '../../core/index.ts';
import { buildContextView, type ContextView } from '../../view/context-model.ts';
import type { TimelineCall } from '../../view/render-session.ts';
import type { CallLog } from '../proxy/call-log.ts';
import { load, type SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

/** One call of the timeline: its record without the journal, with the journal's actions counted. */
export type CallSummary = TimelineCall;

export interface SessionView {
  session: SessionInfo;
  view: ContextView;
  calls: CallSummary[];
}

export async function sessionView(deps: SessionDeps, key: SessionKey, calls: CallLog): Promise<SessionView> {
  const loaded = await load(deps, key);
  // The pipeline's own (memoized) counter: the sizes `prepare` and `estimate` counted are reused.
  const { budget, counter } = deps.pipeline;
  const memory = loaded.state.memoryBlock?.text;
  // The same estimate as `stats`, so the page's total is the route's.
  const estimate = deps.pipeline.estimate({
    messages: loaded.messages,
    ...(memory ? { system: memory } : {}),
  });
  const view = buildContextView({
    title: 'What the agent sees now',
    messages: loaded.messages,
    counter,
    budget: {
      window: budget.contextWindow,
      usable: budget.usable,
      warning: budget.warning,
      autoCompact: budget.autoCompact,
      blocking: budget.blocking,
    },
    tokens: estimate.tokens,
    level: estimate.level,
    ...(memory ? { memoryTokens: counter.countText(memory) } : {}),
  });
  return { session: loaded.info, view, calls: await calls.summaries() };
}
