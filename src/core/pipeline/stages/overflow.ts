/**
 * Overflow recovery: what each preset does when the provider answers "context too long".
 * - `cowagent` (000 §1.10): flush everything to memory (reason overflow), then on the first attempt the
 *   aggressive trim; retry if it changed anything, else — and on any later attempt — clear the history.
 * - `kosmokrator` (002 §4.10): attempt 1 compaction (the breaker does not apply; a failure trims the
 *   oldest turn), attempts 2–3 `trimOldest`, then give up appending `Error: {sanitised message}`.
 * - `tiancai` (003 §5.4): compact once and retry; a second overflow gives up.
 * - `default`: flush to memory, cap oversized parts, compact (keeping the last 5 turns if compaction
 *   fails), retry once; then give up.
 * `recoverFromOverflow` returns the messages to retry with and a verdict; `overflowRecovery` wraps it
 * as a Stage (`applied` = retry, `failed` = give up / clear) for the runner's overflow flow.
 */

import type { Message } from '../../messages/types.ts';
import type { ExtractedMemory } from '../../ports.ts';
import { LIMITS } from '../limits.ts';
import { aggressiveTrim } from '../presets/cowagent/aggressive-trim.ts';
import { flushToMemory } from '../presets/cowagent/memory-flush.ts';
import { kosmokratorCompaction } from '../presets/kosmokrator/kosmokrator-compaction.ts';
import { tiancaiCompaction } from '../presets/tiancai/tiancai-compaction.ts';
import type { JournalEntry, MemoryFlush, PipelineEvent, Stage, StageContext, StageResult } from '../types.ts';
import { compaction } from './compaction.ts';
import { journalEntry, protectedIndices, report, sumTokens, textMessage } from './compaction-support.ts';
import { errorText, sanitizeErrorMessage } from './overflow-errors.ts';
import { recallRef } from './recall-hints.ts';

export type OverflowVerdict = 'retry' | 'clear-history' | 'give-up';

export interface OverflowOptions {
  /** `cowagent`, `kosmokrator`, `tiancai`, anything else → `default`. */
  preset: string;
  /** 1-based attempt for the current user turn. */
  attempt: number;
  /** The provider error, for 002's final `Error: …` message. */
  error?: unknown;
}

export interface OverflowRecovery extends StageResult {
  verdict: OverflowVerdict;
}

const NAME = 'overflow-recovery';

interface Acc {
  messages: Message[];
  journal: JournalEntry[];
  events: PipelineEvent[];
  memories: ExtractedMemory[];
  flushes: MemoryFlush[];
  state: StageContext['state'];
  details: string[];
  errors: string[];
}

async function flush(acc: Acc, ctx: StageContext): Promise<void> {
  const attempt = await flushToMemory(acc.messages, ctx, 'overflow', acc.state.flushed);
  if (attempt.flushed !== undefined) acc.state = { ...acc.state, flushed: attempt.flushed };
  if (attempt.repeated > 0) acc.details.push(`${attempt.repeated} text(s) already flushed`);
  const outcome = attempt.outcome;
  if (!outcome) return;
  acc.flushes.push(outcome.flush);
  acc.memories.push(...outcome.memories);
  if (outcome.error) acc.errors.push(`memory flush: ${outcome.error}`);
  acc.details.push('flushed to memory');
}

async function runStage(acc: Acc, stage: Stage, ctx: StageContext): Promise<StageResult> {
  const r = await stage.run(acc.messages, { ...ctx, state: acc.state });
  acc.messages = r.messages;
  acc.journal.push(...r.journal);
  acc.events.push(...r.events);
  if (r.memories) acc.memories.push(...r.memories);
  if (r.state) acc.state = r.state;
  acc.details.push(`${r.report.stage}: ${r.report.status}`);
  if (r.report.error) acc.errors.push(r.report.error);
  return r;
}

/**
 * 002 `trimOldest` (§4.9): leading system messages stay; the first other message goes with every
 * following non-user message, never the last message. Pinned messages, `excludeTools` chains and any
 * call whose result stays (and vice versa) are kept in place; a turn with nothing removable is skipped.
 */
export function trimOldestTurn(
  messages: readonly Message[],
  excludeTools: ReadonlySet<string>,
): Message[] | undefined {
  const n = messages.length;
  if (n < 3) return undefined;
  let i = 0;
  while (i < n && messages[i]!.role === 'system') i++;
  while (i < n - 1) {
    let j = i + 1;
    while (j < n - 1 && messages[j]!.role !== 'user') j++;
    const range = Array.from({ length: j - i }, (_, k) => i + k);
    const keep = protectedIndices(messages, range, excludeTools);
    if (keep.size < range.length) return messages.filter((_, k) => k < i || k >= j || keep.has(k));
    i = j;
  }
  return undefined;
}

function oldestTurn(acc: Acc, ctx: StageContext): boolean {
  const next = trimOldestTurn(acc.messages, ctx.excludeTools);
  if (!next) return false;
  const kept = new Set(next);
  const removed = acc.messages.filter((m) => !kept.has(m));
  acc.messages = next;
  for (const m of removed)
    acc.journal.push(journalEntry(NAME, 'removed', m, ctx.counter, { ref: recallRef(ctx, [m]) }));
  acc.details.push(`trimOldest removed ${removed.length} messages`);
  return true;
}

function aggressive(acc: Acc, ctx: StageContext, capsOnly: boolean): boolean {
  const r = aggressiveTrim(acc.messages, ctx, { capsOnly }, NAME);
  if (!r.changed) return false;
  acc.messages = r.messages;
  acc.journal.push(...r.journal);
  acc.details.push(`aggressive trim: ${r.truncated} truncated, ${r.turnsRemoved} turns removed`);
  return true;
}

export async function recoverFromOverflow(
  messages: readonly Message[],
  ctx: StageContext,
  options: OverflowOptions,
): Promise<OverflowRecovery> {
  const tokensBefore = sumTokens(messages, ctx.counter);
  const acc: Acc = {
    messages: messages as Message[],
    journal: [],
    events: [],
    memories: [],
    flushes: [],
    state: { ...ctx.state, overflowAttempts: options.attempt },
    details: [],
    errors: [],
  };
  const { attempt } = options;
  let verdict: OverflowVerdict = 'give-up';
  switch (options.preset) {
    case 'cowagent':
      await flush(acc, ctx);
      verdict = attempt === 1 && aggressive(acc, ctx, false) ? 'retry' : 'clear-history';
      break;
    case 'kosmokrator':
      if (attempt === 1) {
        const r = await runStage(acc, kosmokratorCompaction({ maxFailures: LIMITS.small }), ctx);
        if (r.report.status === 'applied') verdict = 'retry';
        else if (oldestTurn(acc, ctx)) verdict = 'retry';
      } else if (attempt <= 3 && oldestTurn(acc, ctx)) verdict = 'retry';
      if (verdict === 'give-up') {
        const text = `Error: ${sanitizeErrorMessage(errorText(options.error ?? 'context overflow'))}`;
        const m = textMessage(ctx.ids.next('error'), 'assistant', text, 'error');
        acc.messages = [...acc.messages, m];
        acc.journal.push(journalEntry(NAME, 'inserted', m, ctx.counter));
      }
      break;
    case 'tiancai':
      if (attempt === 1) {
        const r = await runStage(acc, tiancaiCompaction({ trigger: 'recovery' }), ctx);
        if (r.report.status === 'applied') verdict = 'retry';
      }
      break;
    default:
      if (attempt === 1) {
        await flush(acc, ctx);
        const capped = aggressive(acc, ctx, true);
        const r = await runStage(acc, compaction({ maxFailures: LIMITS.small }), ctx);
        const compacted = r.report.status === 'applied';
        const trimmed = !compacted && aggressive(acc, ctx, false);
        if (capped || compacted || trimmed) verdict = 'retry';
      }
  }
  const tokensAfter = sumTokens(acc.messages, ctx.counter);
  if (acc.memories.length > 0)
    acc.events.push({ type: 'memory-extracted', stage: NAME, count: acc.memories.length });
  const status = verdict === 'retry' ? 'applied' : 'failed';
  const extra: Parameters<typeof report>[4] = {
    detail: `attempt ${attempt}: ${verdict}${acc.details.length > 0 ? ` (${acc.details.join('; ')})` : ''}`,
  };
  if (verdict !== 'retry') acc.errors.unshift(`${verdict}: recovery exhausted at attempt ${attempt}`);
  if (acc.errors.length > 0) extra.error = acc.errors.join('; ');
  const result: OverflowRecovery = {
    verdict,
    messages: acc.messages,
    report: report(NAME, status, tokensBefore, tokensAfter, extra),
    journal: acc.journal,
    events: acc.events,
    state: acc.state,
  };
  if (acc.memories.length > 0) result.memories = acc.memories;
  if (acc.flushes.length > 0) result.flushes = acc.flushes;
  return result;
}

/**
 * The recovery as a Stage: `applied` when the messages should be retried; `failed` (with the verdict
 * `clear-history` or `give-up` in `error`) otherwise — 002's give-up still returns the messages with
 * its `Error: …` message appended, and 000's flush still reports its memories.
 */
export function overflowRecovery(options: OverflowOptions): Stage {
  const stage: Stage & { toString(): string } = {
    name: NAME,
    /** For reports and tests: `overflow-recovery(preset#attempt)`. */
    toString: () => `${NAME}(${options.preset}#${options.attempt})`,
    async run(messages, ctx) {
      const { verdict: _verdict, ...result } = await recoverFromOverflow(messages, ctx, options);
      return result;
    },
  };
  return stage;
}
