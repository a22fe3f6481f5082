/**
 * Shared helpers of the compaction family (turn trimming, sliding window, LLM compaction, overflow
 * recovery): option parsing, token sums, pairing-safe cut points, the set of messages that must
 * survive a removal (pinned, `excludeTools` results and their calls), journal entries and events.
 */
import { isPinned } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import type { SummarizeRequest, SummarizeResult, TokenCounter } from '../../ports.ts';
import { estimateContext } from '../../tokens/context.ts';
import { SESSION_LOG } from '../engine/journal.ts';
import type {
  JournalAction,
  JournalEntry,
  PipelineEvent,
  PipelineState,
  StageContext,
  StageReport,
  StageResult,
  StageStatus,
} from '../types.ts';
import { anchoredTokens, sessionLogRecover } from './stage-kit.ts';

/** `meta.kind` values of messages the compaction family inserts. */
export const INSERTED_KINDS: ReadonlySet<string> = new Set([
  'summary',
  'protected-context',
  'compaction-marker',
  'standing-instructions',
]);

/** Option parsing and the session-log recovery text are the stage kit's, shared with the cheap stages. */
export { parseOptions as parseStageOptions, sessionLogRecover as recoverFromLog } from './stage-kit.ts';

export function sumTokens(messages: readonly Message[], counter: TokenCounter): number {
  let n = 0;
  for (const m of messages) n += counter.countMessage(m);
  return n;
}

/**
 * Context estimate (system + tools + messages). `anchor`: anchored to the reported usage the run
 * trusts (trigger checks, see `anchoredTokens`).
 */
export function contextTokens(messages: readonly Message[], ctx: StageContext, anchor = false): number {
  if (anchor) return anchoredTokens(messages, ctx);
  const input: Parameters<typeof estimateContext>[0] = { messages };
  if (ctx.system !== undefined) input.system = ctx.system;
  if (ctx.tools !== undefined) input.tools = ctx.tools;
  return estimateContext(input, ctx.counter, { anchor }).tokens;
}

/**
 * Calls `onPair(call, result)` with the message indices of each tool result and the nearest preceding
 * open call of its id (as `pairToolCalls` pairs them); returns the messages of the calls left open.
 */
function eachPair(messages: readonly Message[], onPair: (call: number, result: number) => void): number[] {
  const open = new Map<string, number[]>();
  messages.forEach((m, mi) => {
    for (const p of m.parts) {
      if (p.type === 'tool-call') {
        const stack = open.get(p.id) ?? [];
        stack.push(mi);
        open.set(p.id, stack);
      } else if (p.type === 'tool-result') {
        const from = open.get(p.callId)?.pop();
        if (from !== undefined) onPair(from, mi);
      }
    }
  });
  return [...open.values()].flat();
}

/**
 * `safe[i]` is true when cutting the list before index `i` separates no tool call from its result
 * (a call without a result spans to the end). `safe[0]` and `safe[length]` are always true.
 */
export function safeCuts(messages: readonly Message[]): boolean[] {
  const n = messages.length;
  const span = new Array<number>(n + 2).fill(0);
  const open = eachPair(messages, (from, mi) => {
    if (from === mi) return;
    span[from + 1]! += 1; // cuts from+1 … mi are unsafe
    span[mi + 1]! -= 1;
  });
  for (const from of open) {
    span[from + 1]! += 1;
    span[n]! -= 1;
  }
  const safe: boolean[] = [];
  let depth = 0;
  for (let i = 0; i <= n; i++) {
    depth += span[i]!;
    safe.push(i === 0 || i === n || depth === 0);
  }
  return safe;
}

/** Nearest safe cut at or before `i` (≥ `min`), else at or after it; `undefined` when none. */
export function nearestSafeCut(
  safe: readonly boolean[],
  i: number,
  min = 0,
  prefer: 'earlier' | 'later' = 'earlier',
): number | undefined {
  const n = safe.length - 1;
  const back = () => {
    for (let j = Math.min(i, n); j >= min; j--) if (safe[j]) return j;
    return undefined;
  };
  const fwd = () => {
    for (let j = Math.max(i, min); j <= n; j++) if (safe[j]) return j;
    return undefined;
  };
  return prefer === 'earlier' ? (back() ?? fwd()) : (fwd() ?? back());
}

function excludedTool(m: Message, excludeTools: ReadonlySet<string>): boolean {
  if (excludeTools.size === 0) return false;
  for (const p of m.parts) {
    if (p.type === 'tool-call' && excludeTools.has(p.name)) return true;
    if (p.type === 'tool-result' && p.name !== undefined && excludeTools.has(p.name)) return true;
  }
  return false;
}

/**
 * Of the indices in `candidates` (messages about to be removed or summarised), those that must stay
 * verbatim: pinned messages, calls and results of `excludeTools`, candidates paired with a message
 * outside the candidates (a cut that is not pairing-safe; `keepCrossingPairs: false` reproduces a
 * seed's raw cut), and — so that pairing holds — every call or result paired with one of those.
 */
export function protectedIndices(
  messages: readonly Message[],
  candidates: Iterable<number>,
  excludeTools: ReadonlySet<string>,
  options: { keepCrossingPairs?: boolean } = {},
): Set<number> {
  const crossing = options.keepCrossingPairs ?? true;
  const cand = new Set(candidates);
  const keep = new Set<number>();
  for (const i of cand) {
    const m = messages[i]!;
    if (isPinned(m) || excludedTool(m, excludeTools)) keep.add(i);
  }
  // Pair partners (nearest preceding open call, as pairToolCalls does).
  const partners = new Map<number, Set<number>>();
  const link = (a: number, b: number) => {
    if (a === b) return;
    if (!partners.has(a)) partners.set(a, new Set());
    if (!partners.has(b)) partners.set(b, new Set());
    partners.get(a)!.add(b);
    partners.get(b)!.add(a);
  };
  eachPair(messages, link);
  // A candidate paired with a message that stays (outside the candidates) stays too.
  if (crossing)
    for (const [i, set] of partners) if (cand.has(i) && [...set].some((j) => !cand.has(j))) keep.add(i);
  if (keep.size === 0) return keep;
  const queue = [...keep];
  while (queue.length > 0) {
    const i = queue.pop()!;
    for (const j of partners.get(i) ?? []) {
      if (!cand.has(j) || keep.has(j)) continue;
      keep.add(j);
      queue.push(j);
    }
  }
  return keep;
}

/** Number of leading system messages that belong to the caller (not inserted by a compaction). */
export function leadingSystemCount(messages: readonly Message[]): number {
  let i = 0;
  while (i < messages.length) {
    const m = messages[i]!;
    if (m.role !== 'system' || INSERTED_KINDS.has(String(m.meta?.kind ?? ''))) break;
    i++;
  }
  return i;
}

export function journalEntry(
  stage: string,
  action: JournalAction,
  message: Message,
  counter: TokenCounter,
  extra: { replacementId?: string; tokensAfter?: number; ref?: string | undefined } = {},
): JournalEntry {
  const entry: JournalEntry = {
    stage,
    action,
    messageId: message.id,
    tokensBefore: action === 'inserted' ? 0 : counter.countMessage(message),
    tokensAfter: action === 'inserted' ? counter.countMessage(message) : (extra.tokensAfter ?? 0),
    location: SESSION_LOG,
    recover:
      action === 'inserted'
        ? `Inserted by ${stage}; each message it stands for has its own entry.`
        : sessionLogRecover(message.id),
  };
  if (extra.replacementId !== undefined) entry.replacementId = extra.replacementId;
  if (extra.ref !== undefined) entry.ref = extra.ref;
  return entry;
}

/** The result of a stage that leaves its input as it is (identity), with the reason. */
export function unchangedResult(
  stage: string,
  input: readonly Message[],
  tokens: number,
  status: 'noop' | 'skipped',
  detail: string,
  events: PipelineEvent[] = [],
  state?: PipelineState,
): StageResult {
  const r: StageResult = {
    messages: input as Message[],
    report: report(stage, status, tokens, tokens, { detail }),
    journal: [],
    events,
  };
  if (state) r.state = state;
  return r;
}

export function report(
  stage: string,
  status: StageStatus,
  tokensBefore: number,
  tokensAfter: number,
  extra: { detail?: string; error?: string; usage?: StageReport['summarizerUsage'] } = {},
): StageReport {
  const r: StageReport = { stage, status, tokensBefore, tokensAfter };
  if (extra.detail !== undefined) r.detail = extra.detail;
  if (extra.error !== undefined) r.error = extra.error;
  if (extra.usage !== undefined) r.summarizerUsage = extra.usage;
  return r;
}

export function compactionEvents(
  stage: string,
  trigger: string,
  before: { messages: number; tokens: number },
  after: { messages: number; tokens: number },
  error?: string,
): PipelineEvent[] {
  const end: PipelineEvent = {
    type: 'compaction-end',
    stage,
    trigger,
    messagesBefore: before.messages,
    messagesAfter: after.messages,
    tokensBefore: before.tokens,
    tokensAfter: after.tokens,
  };
  if (error !== undefined) end.error = error;
  return [
    { type: 'compaction-start', stage, trigger, messages: before.messages, tokens: before.tokens },
    end,
  ];
}

export type SummaryOutcome = { ok: true; result: SummarizeResult } | { ok: false; error: string };

/** Calls the summarizer; a throw becomes `{ ok: false }` (outcomes are data), unless the run was aborted. */
export async function trySummarize(
  ctx: StageContext,
  request: Omit<SummarizeRequest, 'signal'>,
): Promise<SummaryOutcome> {
  const req: SummarizeRequest = { ...request };
  if (ctx.signal !== undefined) req.signal = ctx.signal;
  try {
    const result = await ctx.summarizer.summarize(req);
    return { ok: true, result };
  } catch (error) {
    if (ctx.signal?.aborted) throw error; // a cancelled run is not a failed compaction
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A text-only message ctxkit inserts. */
export function textMessage(id: string, role: Message['role'], text: string, kind: string): Message {
  return { id, role, parts: [{ type: 'text', text }], meta: { kind } };
}
