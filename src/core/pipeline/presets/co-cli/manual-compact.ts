/**
 * co-cli's `/compact` (SEED-RULES §3.3): the whole history is summarised (purpose `manual-compact`) and
 * replaced by exactly two messages, `[Compacted conversation summary]\n{summary}` and
 * `Understood. I have the conversation context.` Empty history → "Nothing to compact", unchanged.
 * A failing (or empty) summary leaves the history unchanged with a `failed` report. Pinned messages and
 * `excludeTools` chains (and the caller's leading system messages) are kept before the two messages.
 */
import type { Message } from '../../../messages/types.ts';
import {
  compactionEvents,
  journalEntry,
  leadingSystemCount,
  protectedIndices,
  report,
  sumTokens,
  textMessage,
  trySummarize,
} from '../../stages/compaction-support.ts';
import { recallRef, rereadNote, withRef } from '../../stages/recall-hints.ts';
import type { JournalEntry, StageContext, StageResult } from '../../types.ts';

const NAME = 'manual-compact';

export const NOTHING_TO_COMPACT = 'Nothing to compact';
export const COMPACT_ACK = 'Understood. I have the conversation context.';

export interface ManualCompactOptions {
  /** Focus instructions passed to the summarizer. */
  instructions?: string;
}

export async function manualCompact(
  messages: readonly Message[],
  ctx: StageContext,
  options: ManualCompactOptions = {},
): Promise<StageResult> {
  const tokensBefore = sumTokens(messages, ctx.counter);
  const lead = leadingSystemCount(messages);
  const range = Array.from({ length: messages.length - lead }, (_, i) => lead + i);
  const keep = protectedIndices(messages, range, ctx.excludeTools);
  const folded = range.filter((i) => !keep.has(i)).map((i) => messages[i]!);
  const unchanged = (status: 'noop' | 'failed', detail: string, error?: string): StageResult => {
    const extra: Parameters<typeof report>[4] = { detail };
    if (error !== undefined) extra.error = error;
    return {
      messages: messages as Message[],
      report: report(NAME, status, tokensBefore, tokensBefore, extra),
      journal: [],
      events: [],
    };
  };
  if (folded.length === 0) return unchanged('noop', NOTHING_TO_COMPACT);

  const request: Parameters<typeof trySummarize>[1] = {
    purpose: 'manual-compact',
    preset: ctx.preset,
    messages: folded,
  };
  if (options.instructions !== undefined) request.instructions = options.instructions;
  if (ctx.state.lastSummary !== undefined) request.previousSummary = ctx.state.lastSummary;
  const outcome = await trySummarize(ctx, request);
  if (!outcome.ok) return unchanged('failed', 'summarizer failed; history unchanged', outcome.error);
  const summary = outcome.result.summary.trim();
  if (summary === '') return unchanged('failed', 'empty summary; history unchanged', 'empty summary');

  // With recall on, the summary names the span it folds, as the call that reads it back whole.
  const span = recallRef(ctx, folded);
  const note = span ? `${rereadNote(span, 'the messages it stands for, whole')}\n` : '';
  const summaryMessage = textMessage(
    ctx.ids.next('summary'),
    'user',
    `[Compacted conversation summary]\n${note}${summary}`,
    'summary',
  );
  const ack = textMessage(ctx.ids.next('summary'), 'assistant', COMPACT_ACK, 'summary');
  const out: Message[] = [
    ...messages.slice(0, lead),
    ...range.filter((i) => keep.has(i)).map((i) => messages[i]!),
    summaryMessage,
    ack,
  ];
  const journal: JournalEntry[] = withRef(
    folded.map((m) => journalEntry(NAME, 'summarized', m, ctx.counter, { replacementId: summaryMessage.id })),
    span,
  );
  journal.push(
    journalEntry(NAME, 'inserted', summaryMessage, ctx.counter),
    journalEntry(NAME, 'inserted', ack, ctx.counter),
  );
  const tokensAfter = sumTokens(out, ctx.counter);
  const extra: Parameters<typeof report>[4] = { detail: `${folded.length} messages compacted` };
  if (outcome.result.usage) extra.usage = outcome.result.usage;
  const result: StageResult = {
    messages: out,
    report: report(NAME, 'applied', tokensBefore, tokensAfter, extra),
    journal,
    events: compactionEvents(
      NAME,
      'manual',
      { messages: messages.length, tokens: tokensBefore },
      { messages: out.length, tokens: tokensAfter },
    ),
    state: { ...ctx.state, lastSummary: summary },
  };
  if (outcome.result.memories && outcome.result.memories.length > 0)
    result.memories = outcome.result.memories;
  return result;
}
