/**
 * CowAgent's memory flush (SEED-RULES §2.3) as a helper of the trimming and overflow stages: the
 * dropped messages go to the summarizer (purpose `memory-flush`); an error, an empty answer or `无`
 * falls back to the rule-based lines. Messages without text are not flushed at all.
 */
import { messageText } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import type { ExtractedMemory } from '../../ports.ts';
import { flushLabels, memoryFlushFallback } from '../../summarizers/flush-fallback.ts';
import type { MemoryFlush, StageContext, StageReport } from '../types.ts';
import { trySummarize } from './compaction-support.ts';

export interface FlushOutcome {
  flush: MemoryFlush;
  memories: ExtractedMemory[];
  /** The summarizer's error when the fallback was used because it threw. */
  error?: string;
  usage?: StageReport['summarizerUsage'];
}

/** Flushes `messages`; `undefined` when there is nothing to flush (no text, or nothing worth keeping). */
export async function flushToMemory(
  messages: readonly Message[],
  ctx: StageContext,
  reason: MemoryFlush['reason'],
): Promise<FlushOutcome | undefined> {
  const withText = messages.filter(
    (m) => (m.role === 'user' || m.role === 'assistant') && messageText(m).trim() !== '',
  );
  if (withText.length === 0) return undefined;
  const outcome = await trySummarize(ctx, {
    purpose: 'memory-flush',
    preset: ctx.preset,
    messages: withText,
  });
  let summary = outcome.ok ? outcome.result.summary.trim() : '';
  if (summary === '无') summary = '';
  const memories = outcome.ok ? (outcome.result.memories ?? []) : [];
  if (summary === '') summary = memoryFlushFallback(withText, 10, flushLabels(ctx.preset));
  if (summary === '' && memories.length === 0) return undefined;
  const result: FlushOutcome = {
    flush: { reason, summary, messageIds: withText.map((m) => m.id) },
    memories,
  };
  if (!outcome.ok) result.error = outcome.error;
  else if (outcome.result.usage) result.usage = outcome.result.usage;
  return result;
}
