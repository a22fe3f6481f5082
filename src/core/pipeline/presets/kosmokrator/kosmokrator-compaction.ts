/**
 * KosmoKrator's LLM compaction (SEED-RULES §4.7–4.8): keep the last 3 user turns; the older part goes
 * to the summarizer (purpose `compaction`, with the 002 transcript) in one call returning the summary
 * and memories; the result is `[protected context] + [system summary] + recent`, the summary wrapped as
 * HEAD does. An empty summary is "Nothing to compact." (not a failure); a throw counts one failure in
 * `state.compactionFailures` (≥ 3 opens the breaker: the stage is then skipped) and returns the input —
 * the flow trims the oldest turn next. Success resets the count. With recall on, the summary ends
 * with `(the messages it stands for, whole: reread('s…'))`.
 */
import * as z from 'zod/mini';
import { startsTurn } from '../../../messages/text.ts';
import type { Message } from '../../../messages/types.ts';
import { LIMITS } from '../../limits.ts';
import {
  compactionEvents,
  contextTokens,
  journalEntry,
  leadingSystemCount,
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
import type { JournalEntry, PipelineEvent, Stage, StageResult } from '../../types.ts';
import {
  kosmokratorTranscript,
  type ProtectedContext,
  protectedContextText,
  wrapKosmoSummary,
} from './kosmokrator-transcript.ts';

export const KOSMOKRATOR_COMPACTION_DEFAULTS = {
  keepRecentTurns: 3,
  maxFailures: 3,
  wrapSummary: true,
  trigger: 'always',
  capDrops: 'oldest',
  resultChars: 200,
  argChars: 100,
  maxTranscriptChars: 100_000,
} as const;

export interface KosmokratorCompactionOptions {
  /** User turns kept verbatim. @default 3 */
  keepRecentTurns?: number;
  /** Consecutive failures that open the circuit breaker. @default 3 */
  maxFailures?: number;
  /** Wrap the summary as HEAD does (`## Compacted Conversation Summary` … end marker). @default true */
  wrapSummary?: boolean;
  /** `always`: compact whenever run (the flow gates by level); `auto`: only at or above `budget.autoCompact`. @default 'always' */
  trigger?: 'always' | 'auto';
  /** Which transcript lines the 100000-char cap drops. @default 'oldest' */
  capDrops?: 'oldest' | 'newest';
  /** @default 200 */
  resultChars?: number;
  /** @default 100 */
  argChars?: number;
  /** @default 100000 */
  maxTranscriptChars?: number;
  /** The `## Protected Context` message; without it the newest one in the old part is carried over. */
  protectedContext?: ProtectedContext;
}

const positive = z.int().check(z.positive(), z.lte(LIMITS.chars));
export const kosmokratorCompactionOptionsSchema = z.strictObject({
  keepRecentTurns: z._default(positive, KOSMOKRATOR_COMPACTION_DEFAULTS.keepRecentTurns),
  maxFailures: z._default(
    z.int().check(z.positive(), z.lte(LIMITS.small)),
    KOSMOKRATOR_COMPACTION_DEFAULTS.maxFailures,
  ),
  wrapSummary: z._default(z.boolean(), KOSMOKRATOR_COMPACTION_DEFAULTS.wrapSummary),
  trigger: z._default(z.enum(['always', 'auto']), KOSMOKRATOR_COMPACTION_DEFAULTS.trigger),
  capDrops: z._default(z.enum(['oldest', 'newest']), KOSMOKRATOR_COMPACTION_DEFAULTS.capDrops),
  resultChars: z._default(positive, KOSMOKRATOR_COMPACTION_DEFAULTS.resultChars),
  argChars: z._default(positive, KOSMOKRATOR_COMPACTION_DEFAULTS.argChars),
  maxTranscriptChars: z._default(positive, KOSMOKRATOR_COMPACTION_DEFAULTS.maxTranscriptChars),
  protectedContext: z.optional(
    z.strictObject({
      mode: z.string(),
      cwd: z.string(),
      repoRoot: z.optional(z.string()),
      gitBranch: z.optional(z.string()),
      agentType: z.optional(z.string()),
      agentDepth: z.optional(z.int().check(z.nonnegative(), z.lte(LIMITS.small))),
      agentMaxDepth: z.optional(z.int().check(z.nonnegative(), z.lte(LIMITS.small))),
    }),
  ),
});

const NAME = 'kosmokrator-compaction';
export const NOTHING_TO_COMPACT_002 = 'Nothing to compact.';

/** Index of the `keep`-th user turn start from the end (002 `findKeepBoundaryInMessages`), or -1. */
export function keepBoundary(messages: readonly Message[], keep: number): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!startsTurn(messages[i]!)) continue;
    seen++;
    if (seen === keep) return i;
  }
  return -1;
}

export function kosmokratorCompaction(options: KosmokratorCompactionOptions = {}): Stage {
  const o = parseStageOptions(kosmokratorCompactionOptionsSchema, options, NAME);
  return {
    name: NAME,
    async run(input, ctx): Promise<StageResult> {
      const tokensBefore = sumTokens(input, ctx.counter);
      const unchanged = (status: 'noop' | 'skipped', detail: string, events: PipelineEvent[] = []) =>
        unchangedResult(NAME, input, tokensBefore, status, detail, events);
      const failures = ctx.state.compactionFailures;
      if (failures >= o.maxFailures)
        return unchanged('skipped', 'circuit breaker open', [{ type: 'breaker-open', failures }]);
      if (o.trigger === 'auto' && contextTokens(input, ctx, true) < ctx.budget.autoCompact)
        return unchanged('skipped', 'below the auto-compact level');

      const lead = leadingSystemCount(input);
      if (input.length - lead <= o.keepRecentTurns) return unchanged('noop', NOTHING_TO_COMPACT_002);
      let boundary = keepBoundary(input, o.keepRecentTurns);
      const safe = safeCuts(input);
      while (boundary > lead && !(safe[boundary] && startsTurn(input[boundary]!))) boundary--;
      if (boundary <= lead) return unchanged('noop', NOTHING_TO_COMPACT_002);

      const range = Array.from({ length: boundary - lead }, (_, i) => lead + i);
      const keep = protectedIndices(input, range, ctx.excludeTools);
      const folded = range.filter((i) => !keep.has(i)).map((i) => input[i]!);
      if (folded.length === 0) return unchanged('noop', NOTHING_TO_COMPACT_002);
      const trigger = 'auto-compact';
      const transcript = kosmokratorTranscript(folded, {
        resultChars: o.resultChars,
        argChars: o.argChars,
        maxChars: o.maxTranscriptChars,
        capDrops: o.capDrops,
      });
      const outcome = await trySummarize(ctx, {
        purpose: 'compaction',
        preset: ctx.preset,
        messages: folded,
        transcript,
      });
      const before = { messages: input.length, tokens: tokensBefore };

      if (!outcome.ok) {
        const count = failures + 1;
        const events: PipelineEvent[] = compactionEvents(NAME, trigger, before, before, outcome.error);
        if (count >= o.maxFailures) events.push({ type: 'breaker-open', failures: count });
        return {
          messages: input as Message[],
          report: report(NAME, 'failed', tokensBefore, tokensBefore, {
            detail: `compaction failed (${count} consecutive); trim the oldest turn`,
            error: outcome.error,
          }),
          journal: [],
          events,
          state: { ...ctx.state, compactionFailures: count },
        };
      }
      const summary = outcome.result.summary.trim();
      if (summary === '') return unchanged('noop', NOTHING_TO_COMPACT_002);

      const insertedMessages: Message[] = [];
      let protectedMessage: Message | undefined;
      if (o.protectedContext) {
        protectedMessage = textMessage(
          ctx.ids.next('context'),
          'system',
          protectedContextText(o.protectedContext),
          'protected-context',
        );
        insertedMessages.push(protectedMessage);
      } else protectedMessage = folded.findLast((m) => m.meta?.kind === 'protected-context');
      // With recall on, the summary ends with the call that reads the span it folds back whole.
      const summarized = folded.filter((m) => m !== protectedMessage);
      const span = recallRef(ctx, summarized);
      const note = rereadNote(span, 'the messages it stands for, whole');
      const wrapped = o.wrapSummary ? wrapKosmoSummary(summary) : summary;
      const summaryMessage = textMessage(
        ctx.ids.next('summary'),
        'system',
        note === '' ? wrapped : `${wrapped}\n${note}`,
        'summary',
      );
      insertedMessages.push(summaryMessage);
      const out: Message[] = [
        ...input.slice(0, lead),
        ...(protectedMessage ? [protectedMessage] : []),
        summaryMessage,
        ...range.filter((i) => keep.has(i)).map((i) => input[i]!),
        ...input.slice(boundary),
      ];
      const journal: JournalEntry[] = withRef(
        summarized.map((m) =>
          journalEntry(NAME, 'summarized', m, ctx.counter, { replacementId: summaryMessage.id }),
        ),
        span,
      );
      for (const m of insertedMessages) journal.push(journalEntry(NAME, 'inserted', m, ctx.counter));
      const tokensAfter = sumTokens(out, ctx.counter);
      const memories = outcome.result.memories ?? [];
      const events = compactionEvents(NAME, trigger, before, { messages: out.length, tokens: tokensAfter });
      if (memories.length > 0) events.push({ type: 'memory-extracted', stage: NAME, count: memories.length });
      const extra: Parameters<typeof report>[4] = {
        detail: `${folded.length} messages compacted, ${memories.length} memories`,
      };
      if (outcome.result.usage) extra.usage = outcome.result.usage;
      const result: StageResult = {
        messages: out,
        report: report(NAME, 'applied', tokensBefore, tokensAfter, extra),
        journal,
        events,
        state: {
          ...ctx.state,
          compactionFailures: 0,
          lastSummary: summary,
          lastCompactionTokens: contextTokens(out, ctx),
        },
      };
      if (memories.length > 0) result.memories = memories;
      return result;
    },
  };
}
