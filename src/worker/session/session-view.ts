/**
 * What the context view of a session draws (`GET /v1/sessions/:session/view` and the page): the
 * window the agent sees now split by category against the levels — the same estimate as `stats` — with
 * every part of the prompt as a row (the memory block ctxkit injects, and the system prompt and tool
 * schemas of the newest call that sent them), and one page of the timeline of its calls (the proxy's,
 * and the `prepare`, `compact` and `overflow` routes' runs) with tokens before/after, stage reports and
 * journal sizes.
 */
import type { SessionInfo } from '../../core/index.ts';
import { buildContextView, type ContextView, type ToolSchema } from '../../view/context-model.ts';
import type { TimelineCall } from '../../view/render-session.ts';
import type { CallLog, CallRecord, TimelinePage } from '../proxy/call-log.ts';
import { load, type SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

/** One call of the timeline: its record without the journal, with the journal's actions counted. */
export type CallSummary = TimelineCall;

/** Calls per page of the timeline. @default 50 */
export const TIMELINE_PAGE = 50;

export interface SessionView {
  session: SessionInfo;
  view: ContextView;
  /** The page's calls, oldest first. */
  calls: CallSummary[];
  /** Where the page is in the timeline, and how many calls there were. */
  timeline: Omit<TimelinePage, 'calls'> & { limit: number };
}

/** The system prompt and tools of the newest kept call that sent them, with the call they came from. */
async function lastPrompt(
  calls: CallLog,
): Promise<{ from: CallRecord; system?: string; tools: ToolSchema[] } | undefined> {
  const records = await calls.list();
  const from = [...records].reverse().find((r) => r.prompt?.system || r.prompt?.tools?.length);
  if (!from) return undefined;
  const system = from.prompt?.system && (await calls.text(from.prompt.system.digest));
  const tools: ToolSchema[] = [];
  for (const t of from.prompt?.tools ?? []) {
    const json = await calls.text(t.digest);
    if (json !== undefined) tools.push({ name: t.name, json });
  }
  return { from, ...(system ? { system } : {}), tools };
}

export async function sessionView(
  deps: SessionDeps,
  key: SessionKey,
  calls: CallLog,
  page: { offset?: number; limit?: number } = {},
): Promise<SessionView> {
  const loaded = await load(deps, key);
  // The pipeline's own (memoized) counter: the sizes `prepare` and `estimate` counted are reused.
  const { budget, counter } = deps.pipeline;
  const memory = loaded.state.memoryBlock?.text;
  // The same estimate as `stats`, so the page's total is the route's.
  const estimate = deps.pipeline.estimate({
    messages: loaded.messages,
    ...(memory ? { system: memory } : {}),
  });
  const prompt = await lastPrompt(calls);
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
    ...(memory
      ? { injected: [{ label: 'memory block (injected into the system prompt)', text: memory }] }
      : {}),
    ...(prompt?.system ? { system: prompt.system } : {}),
    ...(prompt && prompt.tools.length > 0 ? { tools: prompt.tools } : {}),
  });
  // The client's prompt is not part of the session: the window's total stays the `stats` estimate
  // (what the session sends besides the caller's own system prompt and tools), and says so.
  if (prompt)
    view.title = `What the agent sees now (system prompt and tools as of the call at ${new Date(prompt.from.at).toISOString().slice(0, 19).replace('T', ' ')} UTC)`;
  const limit = Math.min(Math.max(page.limit ?? TIMELINE_PAGE, 1), 200);
  const { calls: shown, ...timeline } = await calls.page(Math.max(page.offset ?? 0, 0), limit);
  return { session: loaded.info, view, calls: shown, timeline: { ...timeline, limit } };
}
