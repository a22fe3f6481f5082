/**
 * co-cli's history window (SEED-RULES §3.2): over `maxMessages`, keep the head (up to the first
 * assistant text response), the tail (`max(4, max // 2)` messages) and replace the middle by one user
 * message `[Summary of {N} earlier messages]\n{summary}` — or, when the summarizer fails, the static
 * `[Earlier conversation trimmed — {N} messages removed to stay within context budget]`.
 * `split: 'index'` reproduces co-cli's pure index cut (which can orphan a tool result);
 * `split: 'pairing-safe'` (the default) moves both boundaries so no call is separated from its result.
 * With recall on, the marker ends with `(the messages it stands for, whole: reread('s…'))`.
 */
import * as z from 'zod/mini';
import type { Message } from '../../../messages/types.ts';
import { LIMITS } from '../../limits.ts';
import {
  compactionEvents,
  journalEntry,
  nearestSafeCut,
  parseStageOptions,
  protectedIndices,
  report,
  safeCuts,
  sumTokens,
  textMessage,
  trySummarize,
  unchangedResult,
} from '../../stages/compaction-support.ts';
import { recallRef, rereadNote, withRef } from '../../stages/recall-hints.ts';
import type { JournalEntry, Stage, StageResult } from '../../types.ts';

export const SLIDING_WINDOW_DEFAULTS = { maxMessages: 40, split: 'pairing-safe' } as const;

export interface SlidingWindowOptions {
  /** Window size in messages; `≤ 0` disables the stage. @default 40 */
  maxMessages?: number;
  /** `index`: co-cli's exact cut; `pairing-safe`: boundaries moved to keep tool pairs together. @default 'pairing-safe' */
  split?: 'index' | 'pairing-safe';
}

export const slidingWindowOptionsSchema = z.strictObject({
  maxMessages: z._default(z.int().check(z.gte(0), z.lte(LIMITS.count)), SLIDING_WINDOW_DEFAULTS.maxMessages),
  split: z._default(z.enum(['index', 'pairing-safe']), SLIDING_WINDOW_DEFAULTS.split),
});

const NAME = 'sliding-window';

export function summaryMarker(n: number, summary: string): string {
  return `[Summary of ${n} earlier messages]\n${summary}`;
}

export function trimmedMarker(n: number): string {
  return `[Earlier conversation trimmed — ${n} messages removed to stay within context budget]`;
}

/** Index just after the first assistant message with a text part (co-cli `_find_first_run_end` + 1); 1 when none. */
export function headEnd(messages: readonly Message[]): number {
  const i = messages.findIndex((m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'text'));
  return Math.max(i, 0) + 1;
}

/** The `[head_end, tail_start)` span to drop, or undefined when nothing is droppable. */
export function windowSpan(
  messages: readonly Message[],
  maxMessages: number,
  split: 'index' | 'pairing-safe',
): { start: number; end: number } | undefined {
  const len = messages.length;
  let start = headEnd(messages);
  const tailCount = Math.max(4, Math.floor(maxMessages / 2));
  let end = Math.max(start, len - tailCount);
  if (split === 'pairing-safe') {
    const safe = safeCuts(messages);
    start = nearestSafeCut(safe, start, start, 'later') ?? len;
    let e = nearestSafeCut(safe, end, start, 'earlier');
    if (e === undefined || e <= start) e = nearestSafeCut(safe, end, start, 'later');
    end = e !== undefined && e < len ? e : start;
  }
  return end > start ? { start, end } : undefined;
}

export function slidingWindow(options: SlidingWindowOptions = {}): Stage {
  const o = parseStageOptions(slidingWindowOptionsSchema, options, NAME);
  return {
    name: NAME,
    async run(input, ctx): Promise<StageResult> {
      const tokensBefore = sumTokens(input, ctx.counter);
      const noop = (detail: string) => unchangedResult(NAME, input, tokensBefore, 'noop', detail);
      if (o.maxMessages <= 0 || input.length <= o.maxMessages)
        return noop(`${input.length} messages within window`);
      const span = windowSpan(input, o.maxMessages, o.split);
      if (!span) return noop('over the window but nothing droppable');
      const range = Array.from({ length: span.end - span.start }, (_, i) => span.start + i);
      const keep = protectedIndices(input, range, ctx.excludeTools, {
        keepCrossingPairs: o.split !== 'index',
      });
      const dropped = range.filter((i) => !keep.has(i)).map((i) => input[i]!);
      if (dropped.length === 0) return noop('every message in the middle is protected');
      const n = dropped.length;

      const outcome = await trySummarize(ctx, {
        purpose: 'sliding-window',
        preset: ctx.preset,
        messages: dropped,
      });
      const summary = outcome.ok ? outcome.result.summary.trim() : '';
      // With recall on, the marker names the span it stands for, as the call that reads it back whole.
      const ref = recallRef(ctx, dropped);
      const note = rereadNote(ref, 'the messages it stands for, whole');
      const text = summary !== '' ? summaryMarker(n, summary) : trimmedMarker(n);
      const marker = textMessage(
        ctx.ids.next('summary'),
        'user',
        note === '' ? text : `${text}\n${note}`,
        'summary',
      );
      const out: Message[] = [
        ...input.slice(0, span.start),
        marker,
        ...range.filter((i) => keep.has(i)).map((i) => input[i]!),
        ...input.slice(span.end),
      ];
      const journal: JournalEntry[] = withRef(
        dropped.map((m) =>
          journalEntry(NAME, summary !== '' ? 'summarized' : 'removed', m, ctx.counter, {
            replacementId: marker.id,
          }),
        ),
        ref,
      );
      journal.push(journalEntry(NAME, 'inserted', marker, ctx.counter));
      const tokensAfter = sumTokens(out, ctx.counter);
      const extra: Parameters<typeof report>[4] = {
        detail: `dropped ${n} of ${input.length} messages (head ${span.start}, tail ${input.length - span.end})${summary === '' ? '; static marker' : ''}`,
      };
      if (!outcome.ok) extra.error = outcome.error;
      else if (outcome.result.usage) extra.usage = outcome.result.usage;
      const result: StageResult = {
        messages: out,
        report: report(NAME, 'applied', tokensBefore, tokensAfter, extra),
        journal,
        events: compactionEvents(
          NAME,
          'message-window',
          { messages: input.length, tokens: tokensBefore },
          { messages: out.length, tokens: tokensAfter },
          outcome.ok ? undefined : outcome.error,
        ),
      };
      if (summary !== '') result.state = { ...ctx.state, lastSummary: summary };
      return result;
    },
  };
}
