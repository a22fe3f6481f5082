/**
 * The `default` preset's rule for reductions of what was already sent (DESIGN.md, the prompt cache):
 * a stage may change messages the provider holds cached only when that costs nothing extra — a
 * compaction runs in the same pre-flight, the cache is cold, the budget is at the blocking level (the
 * run's `release`) — or when the change pays for itself under the cost model (`quoteRewrite`: the
 * tokens it sheds, read on every send until the next compaction, against the cached suffix it
 * re-bills). Otherwise the change waits: the stage's output keeps the cached messages as they were
 * (its changes to messages not sent yet stand), and the report says what was deferred. A stage that
 * replaces messages one for one can have its deepest changes deferred and its recent ones applied,
 * when those alone pay.
 */
import { quoteRewrite } from '../../cache/cost-model.ts';
import type { Message } from '../../messages/types.ts';
import type { TokenCounter } from '../../ports.ts';
import type { Stage, StageContext, StageResult } from '../types.ts';
import { releaseReason } from './cache-report.ts';
import type { CacheContext } from './cache-state.ts';

/** Position of the first message of `after` that is not the same object as in `before`. */
export function firstChange(before: readonly Message[], after: readonly Message[]): number {
  const n = Math.min(before.length, after.length);
  for (let i = 0; i < n; i++) if (before[i] !== after[i]) return i;
  return n;
}

/** The cost model's quote for shedding `saved` tokens by re-sending `rebilled` cached ones. */
function quote(saved: number, rebilled: number, plan: CacheContext) {
  return quoteRewrite(
    {
      saved,
      rebilled,
      tokens: plan.tokens,
      trigger: plan.trigger,
      fill: plan.fill,
      growth: plan.growth,
      sends: plan.sends,
    },
    plan.rules,
  );
}

interface Choice {
  /** Changes at positions from here on are applied. */
  from: number;
  saved: number;
  rebilled: number;
}

/**
 * Of the one-for-one changes at `positions` (ascending, all before `frozen`), where applying the
 * changes from some position on pays best (undefined when none pays).
 */
function bestSuffix(
  before: readonly Message[],
  after: readonly Message[],
  positions: readonly number[],
  plan: CacheContext,
  counter: TokenCounter,
): Choice | undefined {
  let best: (Choice & { net: number }) | undefined;
  let saved = 0;
  let rebilled = 0;
  let next = plan.frozen;
  for (let k = positions.length - 1; k >= 0; k--) {
    const p = positions[k]!;
    for (let j = p; j < next; j++) rebilled += counter.countMessage(before[j]!);
    next = p;
    saved += counter.countMessage(before[p]!) - counter.countMessage(after[p]!);
    const q = quote(saved, rebilled, plan);
    const net = q.saving - q.cost;
    if (q.pays && (best === undefined || net > best.net)) best = { from: p, saved, rebilled, net };
  }
  return best;
}

function sumTokens(messages: readonly Message[], from: number, to: number, counter: TokenCounter): number {
  let n = 0;
  for (let i = from; i < to; i++) n += counter.countMessage(messages[i]!);
  return n;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The stage's result with its changes before position `from` of the cached part taken back. */
function deferBefore(
  input: readonly Message[],
  result: StageResult,
  from: number,
  counter: TokenCounter,
): { result: StageResult; deferred: number; count: number } {
  const out = result.messages.slice();
  const reverted = new Set<string>();
  let deferred = 0;
  for (let j = 0; j < from; j++)
    if (out[j] !== input[j]) {
      deferred += counter.countMessage(input[j]!) - counter.countMessage(out[j]!);
      reverted.add(input[j]!.id);
      out[j] = input[j]!;
    }
  const changed = firstChange(input, out) < input.length || out.length !== input.length;
  return {
    result: {
      ...result,
      messages: changed ? out : (input as Message[]),
      journal: result.journal.filter((e) => !reverted.has(e.messageId)),
    },
    deferred,
    count: reverted.size,
  };
}

/** `stage` under the cache rule (see the module head). */
export function cacheGated(stage: Stage): Stage {
  const gated: Stage = {
    name: stage.name,
    async run(messages: readonly Message[], ctx: StageContext): Promise<StageResult> {
      const result = await stage.run(messages, ctx);
      const plan = ctx.cache;
      if (!plan || result.messages === messages) return result;
      const first = firstChange(messages, result.messages);
      if (first >= plan.frozen) return result;
      if (plan.release) return { ...result, rewrite: releaseReason(plan.release) };
      const g: Gated = { messages, result, first, plan, counter: ctx.counter };
      return result.messages.length === messages.length ? oneForOne(g) : wholeOrNothing(g);
    },
  };
  if (stage.ahead) gated.ahead = stage.ahead;
  return gated;
}

function paysNote(saved: number, rebilled: number, plan: CacheContext): string {
  const q = quote(saved, rebilled, plan);
  return `pays: sheds ${fmt(saved)} tokens, saves ${fmt(q.saving)} in cache reads for ${fmt(q.cost)} re-billed (${fmt(rebilled)} tokens)`;
}

/** A stage's input and the result that changed a cached message first at `first`. */
interface Gated {
  messages: readonly Message[];
  result: StageResult;
  first: number;
  plan: CacheContext;
  counter: TokenCounter;
}

/** A stage that replaced messages one for one: its changes from the best-paying position on stand. */
function oneForOne({ messages, result, first, plan, counter }: Gated): StageResult {
  const out = result.messages;
  const positions: number[] = [];
  for (let j = first; j < plan.frozen; j++) if (out[j] !== messages[j]) positions.push(j);
  const best = bestSuffix(messages, out, positions, plan, counter);
  const why = best ? paysNote(best.saved, best.rebilled, plan) : undefined;
  if (best && best.from === first) return { ...result, rewrite: why! };
  const kept = deferBefore(messages, result, best?.from ?? plan.frozen, counter);
  const note = `${kept.count} change(s) to cached messages deferred to the next compaction or cold cache (${fmt(kept.deferred)} tokens)`;
  const detail = result.report.detail;
  if (kept.result.messages === messages)
    return {
      ...kept.result,
      report: {
        ...result.report,
        status: 'skipped',
        detail: `deferred: ${detail ? `${detail}; ` : ''}${note}`,
      },
      deferred: kept.deferred,
    };
  const next: StageResult = {
    ...kept.result,
    report: { ...result.report, detail: detail ? `${detail}; ${note}` : note },
    deferred: kept.deferred,
  };
  if (why && firstChange(messages, kept.result.messages) < plan.frozen) next.rewrite = why;
  return next;
}

/** A stage that inserted or removed messages: all of it pays, or all of it waits. */
function wholeOrNothing({ messages, result, first, plan, counter }: Gated): StageResult {
  const out = result.messages;
  const saved = sumTokens(messages, 0, messages.length, counter) - sumTokens(out, 0, out.length, counter);
  const rebilled = sumTokens(messages, first, plan.frozen, counter);
  if (quote(saved, rebilled, plan).pays) return { ...result, rewrite: paysNote(saved, rebilled, plan) };
  const detail = result.report.detail ?? 'changes to cached messages';
  return {
    messages: messages as Message[],
    report: {
      ...result.report,
      status: 'skipped',
      detail: `deferred: ${detail} (${fmt(saved)} tokens) until the next compaction or cold cache`,
    },
    journal: [],
    events: [],
    deferred: Math.max(0, saved),
  };
}
