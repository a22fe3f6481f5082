import { isPinned } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import { sharedNameIndex } from '../../summarizers/name-index.ts';
import { appendReferenceIndex, readReferences } from '../../summarizers/reference-index.ts';
import type {
  JournalEntry,
  PipelineEvent,
  PipelineState,
  Stage,
  StageContext,
  StageResult,
} from '../types.ts';
import { fitTokens, keepRecentCut, newestStepStart, range, widenCut } from './compaction-cut.ts';
import {
  COMPACTION_DEFAULTS,
  type CompactionOptions,
  compactionOptionsSchema,
} from './compaction-options.ts';
import { sentPrefix } from './compaction-prefix.ts';
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
} from './compaction-support.ts';
import { recallRef, rereadNote, withRef } from './recall-hints.ts';
import {
  isInstructionsSection,
  type PinnedSection,
  pinnedSection,
  sectionInstructions,
} from './standing-instructions.ts';

export {
  COMPACTION_DEFAULTS,
  type CompactionOptions,
  compactionOptionsSchema,
} from './compaction-options.ts';

const NAME = 'compaction';
export const SUMMARY_PREFIX = '[Previous conversation summary]\n\n';

/** An archive digest (`[Tool output summary]`, `kind: 'tool_summary'`) that is not pinned. */
function isDigest(m: Message): boolean {
  return m.meta?.kind === 'tool_summary' && !isPinned(m);
}

/**
 * The kept part's default share of what the target leaves above the fixed part: 0.25 in a small
 * window, where the summary's reference index is worth more per token than verbatim text, rising to
 * `keepRecentRatio` (0.75) from 16K tokens of room, where both fit (a compaction then leaves the
 * context near half of usable).
 */
export function keepShare(room: number): number {
  const low = 0.25;
  const high = COMPACTION_DEFAULTS.keepRecentRatio;
  const t = Math.min(1, Math.max(0, (room - 4_000) / 12_000));
  return low + (high - low) * t;
}

/** Smallest token budget a summary is given, even when the kept part alone fills the target. */
export const MIN_SUMMARY_TOKENS = 64;

function withoutMark(state: PipelineState): PipelineState {
  const { lastCompactionTokens: _drop, ...rest } = state;
  return rest;
}

export function compaction(options: CompactionOptions = {}): Stage {
  const o = parseStageOptions(compactionOptionsSchema, options, NAME);
  // The names the index under each summary lists, indexed once (the next compaction lists most again;
  // the summarizer lists most of them too: one index for both).
  const names = sharedNameIndex();
  return {
    name: NAME,
    ahead(messages, ctx) {
      // The reference index (and the deterministic summarizer) rank what a compaction folds: each
      // message's references are read once, as it arrives, and memoized per message (checked on use);
      // so are the summarizer's own reads, when it has any.
      if (o.referenceIndexShare > 0) readReferences(messages);
      ctx.summarizer.ahead?.(messages);
    },
    run: (input, ctx) => compact(input, ctx, false),
    // Prepared ahead of need (`compaction-ahead.ts`): the target leaves room for what arrives before
    // the trigger, so that the result with those messages carried verbatim lands where a compaction
    // at the trigger would.
    async prepare(input, ctx) {
      const line: { guard?: number } = {};
      const result = await compact(input, ctx, true, line);
      return { result, guardLine: line.guard ?? Number.POSITIVE_INFINITY };
    },
  };

  async function compact(
    input: readonly Message[],
    ctx: StageContext,
    ahead: boolean,
    line?: { guard?: number },
  ): Promise<StageResult> {
    const tokensBefore = sumTokens(input, ctx.counter);
    const trigger = o.triggerTokens ?? ctx.budget.autoCompact;
    // What no compaction can shed (system prompt, tool schemas, leading system messages) is counted
    // apart: the target and the loop guard's line are shares of what is left above it.
    const lead = leadingSystemCount(input);
    const fixed = Math.min(trigger, contextTokens(input.slice(0, lead), ctx));
    const above = (ratio: number) => fixed + Math.floor((trigger - fixed) * ratio);
    const guardLine = above(o.loopGuardRatio);
    if (line) line.guard = guardLine;
    const unchanged = (
      status: 'noop' | 'skipped',
      detail: string,
      events: PipelineEvent[] = [],
      state?: PipelineState,
    ) => unchangedResult(NAME, input, tokensBefore, status, detail, events, state);
    const failures = ctx.state.compactionFailures;
    if (failures >= o.maxFailures)
      return unchanged('skipped', 'circuit breaker open', [{ type: 'breaker-open', failures }]);
    const estimate = contextTokens(input, ctx, true);
    if (o.trigger === 'auto' && estimate < trigger)
      return unchanged('skipped', `below the trigger (${estimate} < ${trigger})`);
    const previous = ctx.state.lastCompactionTokens;
    if (previous !== undefined && previous > guardLine) {
      const reason = `loop guard: the previous compaction left ${previous} tokens (> ${guardLine}); mask and trim instead`;
      return unchanged(
        'skipped',
        reason,
        [{ type: 'escalated', stage: NAME, reason }],
        withoutMark(ctx.state),
      );
    }

    // Ahead of the trigger, the growth still to come before it is kept free.
    const growth = ahead ? Math.max(0, trigger - estimate) : 0;
    const aim =
      o.fill !== undefined ? Math.min(trigger, Math.floor(o.fill * ctx.budget.usable)) : above(o.targetRatio);
    const target = Math.max(fixed + MIN_SUMMARY_TOKENS, aim - growth);
    // The kept part's share is of what the target leaves above the fixed part.
    const room = target - fixed;
    const keep = Math.min(o.keepRecentTokens, Math.floor(room * (o.keepRecentRatio ?? keepShare(room))));
    // Archive digests are folded wherever they sit (they describe older results), so the kept part
    // is the recent conversation itself.
    const keptCost = (m: Message) => (isDigest(m) ? 0 : ctx.counter.countMessage(m));
    // The newest step (the model's last call and the results it is about to answer, and anything
    // after it) is never folded, whatever its size: the model must see what it is answering.
    const safe = safeCuts(input);
    const cut = Math.min(
      keepRecentCut(input, lead, keep, keptCost, safe),
      newestStepStart(input, lead, safe),
    );
    if (cut <= lead) return unchanged('noop', 'nothing to compact before the kept part');
    const kept = protectedIndices(input, range(lead, cut), ctx.excludeTools);
    /** What is folded and what is kept when the kept part starts at `at`. */
    const split = (at: number) => ({
      tail: input.slice(at).filter((m) => !isDigest(m)),
      folded: [
        ...range(lead, at)
          .filter((i) => !kept.has(i))
          .map((i) => input[i]!),
        ...input.slice(at).filter(isDigest),
      ],
      keptOld: range(lead, at)
        .filter((i) => kept.has(i))
        .map((i) => input[i]!),
    });
    let { tail, folded, keptOld } = split(cut);
    if (folded.length === 0) return unchanged('noop', 'every old message is protected');

    const before = { messages: input.length, tokens: tokensBefore };
    const fail = (error: string, detail: string): StageResult => {
      const count = failures + 1;
      const events = compactionEvents(NAME, 'auto-compact', before, before, error);
      if (count >= o.maxFailures) events.push({ type: 'breaker-open', failures: count });
      return {
        messages: input as Message[],
        report: report(NAME, 'failed', tokensBefore, tokensBefore, { detail, error }),
        journal: [],
        events,
        state: { ...ctx.state, compactionFailures: count },
      };
    };
    // Standing instructions of the folded user messages (and those a previous section pinned) are
    // re-pinned verbatim in one section; the previous section is replaced, never folded.
    let pinned: PinnedSection | undefined;
    if (o.instructionsShare > 0) {
      const sections = input.filter(isInstructionsSection);
      const previous = sections.flatMap(sectionInstructions);
      const cap = Math.floor(ctx.budget.contextWindow * o.instructionsShare);
      // The section keeps its id while it grows: a pinned message is never lost, only rewritten.
      const id = sections.at(-1)?.id ?? ctx.ids.next('instructions');
      pinned = pinnedSection(id, NAME, previous, folded, cap, ctx.counter);
    }
    const section = pinned?.message ? [pinned.message] : [];
    const unpinned = (list: Message[]) => (pinned ? list.filter((m) => !isInstructionsSection(m)) : list);
    let keptBody = unpinned(keptOld);
    let keptTail = unpinned(tail);
    // The summary fills what the kept part leaves of the target (at least a small floor).
    const keptMessages = [...input.slice(0, lead), ...section, ...keptBody, ...keptTail];
    // …and never less than its own share (the room the kept part's budget leaves): a newest step
    // over that budget (kept whatever its size) takes the total over the target instead.
    const summaryBudget = Math.max(
      MIN_SUMMARY_TOKENS,
      room - keep,
      target - contextTokens(keptMessages, ctx),
    );
    const summaryChars = Math.min(o.maxSummaryChars, Math.floor(summaryBudget * o.charsPerToken));
    // A paid model writes at most `paidSummaryTokens`; with a fill, the newest folded steps take the
    // rest of the target verbatim (below).
    const asked = Math.floor(summaryChars * (1 - o.referenceIndexShare));
    const paidCap =
      o.paidSummaryTokens !== undefined && ctx.summarizer.local !== true
        ? Math.floor(o.paidSummaryTokens * o.charsPerToken)
        : asked;
    const request: Parameters<typeof trySummarize>[1] = {
      purpose: 'compaction',
      preset: ctx.preset,
      messages: folded,
      maxOutputChars: Math.max(1, Math.min(asked, paidCap)),
    };
    if (ctx.state.lastSummary !== undefined) request.previousSummary = ctx.state.lastSummary;
    const sent = sentPrefix(folded, ctx);
    if (sent) request.sent = sent;
    const outcome = await trySummarize(ctx, request);
    if (!outcome.ok) return fail(outcome.error, 'summarizer failed; input kept');
    // With recall on, the summary names the span it folds, as the call that reads it back whole.
    const span = recallRef(ctx, folded);
    const head = span
      ? `${SUMMARY_PREFIX.trimEnd()}\n${rereadNote(span, 'the messages it stands for, whole')}\n\n`
      : SUMMARY_PREFIX;
    const overhead = ctx.counter.countMessage(textMessage('x', o.summaryRole, head, 'summary'));
    const answer = outcome.result.summary.trim();
    if (answer === '') return fail('empty summary', 'the summarizer returned nothing; input kept');
    // The top-up stays under half of what the fold held, so that listing a fold made of names is
    // never what makes the summary as large as the fold (the inflation guard below).
    const foldedTokens = sumTokens(folded, ctx.counter);
    const indexChars = Math.min(summaryChars, Math.floor((foldedTokens * o.charsPerToken) / 2));
    const withIndex =
      o.referenceIndexShare > 0 ? appendReferenceIndex(answer, folded, indexChars, names) : answer;
    const summary = fitTokens(withIndex, summaryBudget - overhead, ctx.counter);
    if (summary === '') return fail('empty summary', 'the summarizer returned nothing; input kept');

    const summaryMessage = textMessage(
      ctx.ids.next('summary'),
      o.summaryRole,
      `${head}${summary}`,
      'summary',
    );
    const summaryTokens = ctx.counter.countMessage(summaryMessage);
    if (summaryTokens >= foldedTokens)
      return fail(
        'inflation',
        `summary (${summaryTokens} tokens) not smaller than what it replaces (${foldedTokens})`,
      );
    if (o.fill !== undefined) {
      // What the summary leaves of the target goes to the newest folded steps, kept verbatim too, so
      // that the context lands at the fill however short the summary came back.
      const head = [...input.slice(0, lead), ...section, summaryMessage, ...keptBody, ...keptTail];
      const cost = (i: number) => (kept.has(i) ? 0 : keptCost(input[i]!));
      const at = widenCut(input, lead, cut, target - contextTokens(head, ctx), cost, summaryTokens, safe);
      if (at < cut) {
        ({ tail, folded, keptOld } = split(at));
        keptBody = unpinned(keptOld);
        keptTail = unpinned(tail);
      }
    }

    const out: Message[] = [...input.slice(0, lead), ...section, summaryMessage, ...keptBody, ...keptTail];
    const journal: JournalEntry[] = withRef(
      folded.map((m) =>
        journalEntry(NAME, 'summarized', m, ctx.counter, { replacementId: summaryMessage.id }),
      ),
      span,
    );
    journal.push(journalEntry(NAME, 'inserted', summaryMessage, ctx.counter));
    if (pinned) journal.push(...pinned.journal);
    const tokensAfter = sumTokens(out, ctx.counter);
    const after = contextTokens(out, ctx);
    const events = compactionEvents(NAME, 'auto-compact', before, {
      messages: out.length,
      tokens: tokensAfter,
    });
    const memories = outcome.result.memories ?? [];
    if (memories.length > 0) events.push({ type: 'memory-extracted', stage: NAME, count: memories.length });
    let detail = `${folded.length} messages → 1 summary (${sumTokens(folded, ctx.counter)} → ${summaryTokens} tokens)`;
    if (pinned && (pinned.kept.length > 0 || pinned.dropped.length > 0))
      detail += `; ${pinned.kept.length} standing instructions pinned${pinned.dropped.length > 0 ? `, ${pinned.dropped.length} dropped over the cap` : ''}`;
    if (after > guardLine) {
      const reason = `still ${after} tokens after compaction (> ${guardLine}, ${Math.round(o.loopGuardRatio * 100)}% of ${trigger} above the ${fixed} fixed)`;
      events.push({ type: 'escalated', stage: NAME, reason });
      detail += `; escalate: ${reason}`;
    }
    const extra: Parameters<typeof report>[4] = { detail };
    if (outcome.result.usage) extra.usage = outcome.result.usage;
    const result: StageResult = {
      messages: out,
      report: report(NAME, 'applied', tokensBefore, tokensAfter, extra),
      journal,
      events,
      state: { ...ctx.state, compactionFailures: 0, lastSummary: summary, lastCompactionTokens: after },
    };
    if (memories.length > 0) result.memories = memories;
    return result;
  }
}
