/**
 * Emergency oldest-turn trimming (002 §4.9). `trimOldest` is KosmoKrator's
 * `ConversationHistory::trimOldest`: fewer than 3 messages → false; leading system messages stay; the
 * first other message goes with every following non-user message, but never the last message — a
 * whole turn. `[q1,a1,q2]` → `[q2]`; `[q1,a1,a2,a3]` → `[a3]`.
 *
 * Pinned messages and results of `excludeTools` stay in place when their turn goes. So that no tool call loses its result, a kept
 * tool result keeps the assistant message holding its call, and a kept assistant message keeps the
 * results of its calls (within the turn being removed). Like 002, the very last message is never
 * removed, so a final tool result can lose its call (`[q1,a1(call),t1]` → `[t1]`); the runner's
 * invariant repair handles that case.
 *
 * The stage (HEAD): once the estimate reaches the blocking level, trim at least `minTurns` and at most
 * `maxTurns` turns, stopping once the estimate is below the auto-compact level.
 */
import { z } from 'zod';
import type { Message } from '../../messages/types.ts';
import { estimateContext } from '../../tokens/context.ts';
import type { JournalEntry, StageContext, StageResult } from '../types.ts';
import {
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
}

export interface TrimOldestResult {
  messages: Message[];
  /** The removed messages, in order. */
  removed: Message[];
}

/** Indices in `[from, to)` that must stay: kept messages plus the call/result partners they need. */
function protectedIn(
  messages: readonly Message[],
  from: number,
  to: number,
  keep: (m: Message) => boolean,
): Set<number> {
  const out = new Set<number>();
  for (let k = from; k < to; k++) if (keep(messages[k]!)) out.add(k);
  if (out.size === 0) return out;
  const callAt = new Map<string, number>();
  const resultsAt = new Map<string, number[]>();
  for (let k = from; k < to; k++)
    for (const p of messages[k]!.parts) {
      if (p.type === 'tool-call') callAt.set(p.id, k);
      else if (p.type === 'tool-result') resultsAt.set(p.callId, [...(resultsAt.get(p.callId) ?? []), k]);
    }
  const queue = [...out];
  while (queue.length > 0) {
    const k = queue.pop()!;
    for (const p of messages[k]!.parts) {
      const partners =
        p.type === 'tool-result'
          ? [callAt.get(p.callId)]
          : p.type === 'tool-call'
            ? (resultsAt.get(p.id) ?? [])
            : [];
      for (const q of partners)
        if (q !== undefined && !out.has(q)) {
          out.add(q);
          queue.push(q);
        }
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
    const stay = protectedIn(messages, i, j, keep);
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
  minTurns: z.number().int().nonnegative().optional(),
  /** Turns removed at most per run. @default 8 */
  maxTurns: z.number().int().positive().optional(),
  /** Run only at the blocking level, or whenever the estimate is at/above `target`. @default 'blocking' */
  trigger: z.enum(['blocking', 'target']).optional(),
  /** Stop once the estimate is below this level (or token count). @default 'auto-compact' */
  target: z.union([z.enum(['auto-compact', 'warning', 'blocking']), z.number().int().positive()]).optional(),
});

export type EmergencyTrimOptions = z.input<typeof emergencyTrimOptionsSchema>;

export const EMERGENCY_TRIM_DEFAULTS = { minTurns: 1, maxTurns: 8 } as const;

export function createEmergencyTrim(options: EmergencyTrimOptions = {}): SyncStage {
  const o = parseOptions(emergencyTrimOptionsSchema, options, 'emergencyTrim');
  const minTurns = o.minTurns ?? EMERGENCY_TRIM_DEFAULTS.minTurns;
  const maxTurns = o.maxTurns ?? EMERGENCY_TRIM_DEFAULTS.maxTurns;
  const trigger = o.trigger ?? 'blocking';
  const targetOption = o.target ?? 'auto-compact';
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
      const input: Parameters<typeof estimateContext>[0] = { messages };
      if (ctx.system !== undefined) input.system = ctx.system;
      if (ctx.tools !== undefined) input.tools = ctx.tools;
      const anchored = estimateContext(input, ctx.counter).tokens;
      const pure = stageTokens(messages, ctx);
      // After a trim the provider's usage no longer describes the list: scale the pure count instead.
      const ratio = pure > 0 ? anchored / pure : 1;
      const threshold = trigger === 'blocking' ? ctx.budget.blocking : target;
      if (anchored < threshold) return noop(name, messages, ctx, `estimate ${anchored} below ${threshold}`);
      const calls = indexToolCalls(messages);
      // Pinned messages and results of excluded tools stay (with their calls, see trimOldest).
      const keep = (m: Message) =>
        m.meta?.pinned === true ||
        m.parts.some((p) => p.type === 'tool-result' && isUntouchable(m, p, calls, ctx));
      let current: readonly Message[] = messages;
      let turns = 0;
      let estimate = anchored;
      const journal: JournalEntry[] = [];
      while (turns < maxTurns && (turns < minTurns || estimate >= target)) {
        const step = trimOldest(current, { keep });
        if (!step) break;
        turns++;
        for (const m of step.removed)
          journal.push({
            stage: name,
            action: 'removed',
            messageId: m.id,
            tokensBefore: ctx.counter.countMessage(m),
            tokensAfter: 0,
            location: SESSION_LOG_LOCATION,
            recover: sessionLogRecover(m.id),
          });
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
