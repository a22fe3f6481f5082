/**
 * Emergency oldest-turn trimming (002 §4.9). `trimOldest` is KosmoKrator's
 * `ConversationHistory::trimOldest`: fewer than 3 messages → false; leading system messages stay; the
 * first other message goes with every following non-user message, but never the last message — a
 * whole turn. `[q1,a1,q2]` → `[q2]`; `[q1,a1,a2,a3]` → `[a3]`.
 *
 * Pinned messages and results of `excludeTools` stay in place when their turn goes. So that no tool call
 * loses its result, a kept tool result keeps the assistant message holding its call, and a kept
 * assistant message keeps the results of its calls (calls and results paired by position, so reused
 * ids work). Like 002, the very last message is never removed, so with `trimOldest` a final tool
 * result can lose its call (`[q1,a1(call),t1]` → `[t1]`); the stage (and `keepTailPairs: true`)
 * keeps that call instead (`[a1(call),t1]`).
 *
 * The stage (HEAD): once the estimate reaches the blocking level, trim at least `minTurns` and at most
 * `maxTurns` turns, stopping once the estimate is below the auto-compact level.
 */
import * as z from 'zod/mini';
import { pairToolCalls } from '../../invariants/pairing.ts';
import type { Message } from '../../messages/types.ts';
import { LIMITS } from '../limits.ts';
import type { JournalEntry, StageContext, StageResult } from '../types.ts';
import { recallRef } from './recall-hints.ts';
import {
  anchoredTokens,
  applied,
  indexToolCalls,
  isUntouchable,
  noop,
  parseOptions,
  SESSION_LOG_LOCATION,
  type SyncStage,
  sessionLogRecover,
  stageTokens,
} from './stage-kit.ts';

export interface TrimOldestOptions {
  /** Messages that must stay where they are (pinned). */
  keep?: (message: Message) => boolean;
  /**
   * Also keep the call (and its partners) of a result that stays after the turn — the last message,
   * which 002 never removes — instead of orphaning it. @default false (002's behaviour)
   */
  keepTailPairs?: boolean;
}

export interface TrimOldestResult {
  messages: Message[];
  /** The removed messages, in order. */
  removed: Message[];
}

/**
 * Indices in `[from, to)` that must stay: kept messages, messages answering (or calling) a kept message
 * before `from`, and, transitively, the call/result partners of those. Calls and results are paired by
 * position (`pairToolCalls`: each result closes the nearest open call with its id), so reused call ids
 * pair correctly.
 */
function protectedIn(
  messages: readonly Message[],
  from: number,
  to: number,
  keep: (m: Message) => boolean,
  keepTailPairs: boolean,
): Set<number> {
  const out = new Set<number>();
  for (let k = from; k < to; k++) if (keep(messages[k]!)) out.add(k);
  const partners = new Map<number, number[]>();
  const link = (a: number, b: number) => {
    const list = partners.get(a);
    if (list) list.push(b);
    else partners.set(a, [b]);
  };
  for (const pair of pairToolCalls(messages).pairs) {
    if (!pair.result) continue;
    const a = pair.call.message;
    const b = pair.result.message;
    if (a === b) continue;
    link(a, b);
    link(b, a);
  }
  for (let k = from; k < to; k++)
    if ((partners.get(k) ?? []).some((q) => q < from || (keepTailPairs && q >= to))) out.add(k);
  const queue = [...out];
  while (queue.length > 0) {
    const k = queue.pop()!;
    for (const q of partners.get(k) ?? [])
      if (q >= from && q < to && !out.has(q)) {
        out.add(q);
        queue.push(q);
      }
  }
  return out;
}

/** Removes the oldest turn; `false` when nothing can go. Never mutates `messages`. */
export function trimOldest(
  messages: readonly Message[],
  options: TrimOldestOptions = {},
): TrimOldestResult | false {
  const n = messages.length;
  if (n < 3) return false;
  const keep = options.keep ?? (() => false);
  let i = 0;
  while (i < n && (messages[i]!.role === 'system' || keep(messages[i]!))) i++;
  while (i < n - 1) {
    let j = i + 1;
    while (j < n - 1 && messages[j]!.role !== 'user') j++;
    const stay = protectedIn(messages, i, j, keep, options.keepTailPairs === true);
    if (stay.size < j - i) {
      const removed: Message[] = [];
      const out: Message[] = [];
      messages.forEach((m, k) => {
        if (k >= i && k < j && !stay.has(k)) removed.push(m);
        else out.push(m);
      });
      return { messages: out, removed };
    }
    i = j; // the whole turn must stay; try the next one
    while (i < n && (messages[i]!.role === 'system' || keep(messages[i]!))) i++;
  }
  return false;
}

export const emergencyTrimOptionsSchema = z.strictObject({
  /** Turns removed at least once triggered (002 HEAD: 1 on the blocking path, 3 in overflow recovery). @default 1 */
  minTurns: z.optional(z.int().check(z.nonnegative(), z.lte(LIMITS.count))),
  /** Turns removed at most per run. @default 8 */
  maxTurns: z.optional(z.int().check(z.positive(), z.lte(LIMITS.count))),
  /** Run only at the blocking level, or whenever the estimate is at/above `target`. @default 'blocking' */
  trigger: z.optional(z.enum(['blocking', 'target'])),
  /** Keep the call of a final tool result instead of orphaning it (002 orphans it). @default true */
  keepTailPairs: z.optional(z.boolean()),
  /** Stop once the estimate is below this level (or token count). @default 'auto-compact' */
  target: z.optional(
    z.union([
      z.enum(['auto-compact', 'warning', 'blocking']),
      z.int().check(z.positive(), z.lte(LIMITS.tokens)),
    ]),
  ),
});

export type EmergencyTrimOptions = z.input<typeof emergencyTrimOptionsSchema>;

export const EMERGENCY_TRIM_DEFAULTS = { minTurns: 1, maxTurns: 8 } as const;

export function createEmergencyTrim(options: EmergencyTrimOptions = {}): SyncStage {
  const o = parseOptions(emergencyTrimOptionsSchema, options, 'emergencyTrim');
  const minTurns = o.minTurns ?? EMERGENCY_TRIM_DEFAULTS.minTurns;
  const maxTurns = o.maxTurns ?? EMERGENCY_TRIM_DEFAULTS.maxTurns;
  const trigger = o.trigger ?? 'blocking';
  const targetOption = o.target ?? 'auto-compact';
  const keepTailPairs = o.keepTailPairs ?? true;
  const name = 'emergency-trim';

  return {
    name,
    run(messages: readonly Message[], ctx: StageContext): StageResult {
      const target =
        typeof targetOption === 'number'
          ? targetOption
          : targetOption === 'warning'
            ? ctx.budget.warning
            : targetOption === 'blocking'
              ? ctx.budget.blocking
              : ctx.budget.autoCompact;
      const anchored = anchoredTokens(messages, ctx);
      const pure = stageTokens(messages, ctx);
      // After a trim the provider's usage no longer describes the list: scale the pure count instead.
      const ratio = pure > 0 ? anchored / pure : 1;
      const threshold = trigger === 'blocking' ? ctx.budget.blocking : target;
      if (anchored < threshold) return noop(name, messages, ctx, `estimate ${anchored} below ${threshold}`);
      const calls = indexToolCalls(messages);
      // Pinned messages, compaction summaries (they stand for everything before them) and results of
      // excluded tools stay (with their calls, see trimOldest).
      const keep = (m: Message) =>
        m.meta?.pinned === true ||
        m.meta?.kind === 'summary' ||
        m.parts.some((p) => p.type === 'tool-result' && isUntouchable(m, p, calls, ctx));
      let current: readonly Message[] = messages;
      let turns = 0;
      let estimate = anchored;
      const journal: JournalEntry[] = [];
      while (turns < maxTurns && (turns < minTurns || estimate >= target)) {
        const step = trimOldest(current, { keep, keepTailPairs });
        if (!step) break;
        turns++;
        for (const m of step.removed) {
          const entry: JournalEntry = {
            stage: name,
            action: 'removed',
            messageId: m.id,
            tokensBefore: ctx.counter.countMessage(m),
            tokensAfter: 0,
            location: SESSION_LOG_LOCATION,
            recover: sessionLogRecover(m.id),
          };
          // No stub stands for a trimmed turn; with recall on, each entry names the ref reread answers.
          const ref = recallRef(ctx, [m]);
          if (ref !== undefined) entry.ref = ref;
          journal.push(entry);
        }
        current = step.messages;
        estimate = Math.round(stageTokens(current, ctx) * ratio);
      }
      if (turns === 0) return noop(name, messages, ctx, 'no turn can be removed');
      return applied(
        name,
        messages,
        current as Message[],
        ctx,
        journal,
        `removed ${turns} oldest turn(s); estimate ≈ ${estimate}`,
      );
    },
  };
}
