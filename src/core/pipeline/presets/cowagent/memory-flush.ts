/**
 * CowAgent's memory flush (SEED-RULES §2.3) as a helper of the trimming and overflow stages: the
 * dropped messages go to the summarizer (purpose `memory-flush`); an error, an empty answer or `无`
 * falls back to the rule-based lines. Messages without text are not flushed at all, and neither is a
 * text already flushed before (by a trim, an overflow or the daily summary): CowAgent keeps an MD5
 * set of flushed texts; ctxkit keeps their keys in `PipelineState.flushed`, so the record travels
 * with the session (and survives a restart of the service). Nothing new → no flush, no summarizer
 * call, no summary injection.
 */
import { sha256Hex } from '../../../blobs/sha256.ts';
import { messageText } from '../../../messages/text.ts';
import type { Message } from '../../../messages/types.ts';
import type { ExtractedMemory } from '../../../ports.ts';
import { flushLabels, memoryFlushFallback } from '../../../summarizers/flush-fallback.ts';
import { trySummarize } from '../../stages/compaction-support.ts';
import type { MemoryFlush, StageContext, StageReport } from '../../types.ts';

/** Flushed-text keys a session keeps (the newest); older ones may, in principle, be flushed again. */
export const FLUSHED_LIMIT = 2000;

/** The wrapper `apply-pending-injections` puts around the first text of a kept user message (000 §1.8). */
const INJECTED =
  /^\[System: Previous conversation summary — \d+ turns were compacted\]\n\n[\s\S]*?\n\nThe recent conversation continues below\.\n\n---\n\n/;

/**
 * The key of a flushed text: the first 16 hex digits (64 bits) of the SHA-256 of its UTF-8. An injected
 * summary is left out of the key, so the message in the working context (with the summary) and its row
 * in the session log (without, which is what the daily summary reads) count as the same text; the
 * summary itself came from a flush and is in memory already.
 */
export async function flushKey(text: string): Promise<string> {
  return (await sha256Hex(text.replace(INJECTED, ''))).slice(0, 16);
}

/** `flushed` with `keys` appended, capped to the newest `FLUSHED_LIMIT`. */
export function recordFlushed(flushed: readonly string[] | undefined, keys: readonly string[]): string[] {
  const next = [...(flushed ?? []), ...keys];
  return next.length > FLUSHED_LIMIT ? next.slice(next.length - FLUSHED_LIMIT) : next;
}

/**
 * 000 `flush_from_messages`' de-duplication: messages whose text (text parts joined by newlines) is
 * empty, already in `flushed`, or repeats an earlier message of the same batch are left out. Returns
 * the messages to flush and the keys to record.
 */
export async function unflushedMessages(
  messages: readonly Message[],
  flushed: readonly string[] | undefined,
): Promise<{ fresh: Message[]; keys: string[]; repeated: number }> {
  const seen = new Set(flushed ?? []);
  const fresh: Message[] = [];
  const keys: string[] = [];
  let repeated = 0;
  for (const m of messages) {
    const text = messageText(m);
    if (text.trim() === '') continue;
    const key = await flushKey(text);
    if (seen.has(key)) {
      repeated++;
      continue;
    }
    seen.add(key);
    keys.push(key);
    fresh.push(m);
  }
  return { fresh, keys, repeated };
}

export interface FlushOutcome {
  flush: MemoryFlush;
  memories: ExtractedMemory[];
  /** The summarizer's error when the fallback was used because it threw. */
  error?: string;
  usage?: StageReport['summarizerUsage'];
}

export interface FlushAttempt {
  /** Undefined when nothing new was left to flush, or nothing worth keeping came out. */
  outcome?: FlushOutcome;
  /** The flushed-text record after this attempt (the input record when nothing new was found). */
  flushed: string[] | undefined;
  /** Messages with text left out because their text had been flushed already. */
  repeated: number;
}

/** Flushes `messages` that were not flushed before; `flushed` is the session's record so far. */
export async function flushToMemory(
  messages: readonly Message[],
  ctx: StageContext,
  reason: MemoryFlush['reason'],
  flushed: readonly string[] | undefined = ctx.state.flushed,
): Promise<FlushAttempt> {
  const candidates = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  const { fresh, keys, repeated } = await unflushedMessages(candidates, flushed);
  const record = flushed === undefined ? undefined : [...flushed];
  if (fresh.length === 0) return { flushed: record, repeated };
  // Recorded before the summary is asked for, as CowAgent does (the set is updated at dispatch).
  const next = recordFlushed(flushed, keys);
  const outcome = await trySummarize(ctx, { purpose: 'memory-flush', preset: ctx.preset, messages: fresh });
  let summary = outcome.ok ? outcome.result.summary.trim() : '';
  if (summary === '无') summary = '';
  const memories = outcome.ok ? (outcome.result.memories ?? []) : [];
  if (summary === '') summary = memoryFlushFallback(fresh, 10, flushLabels(ctx.preset));
  if (summary === '' && memories.length === 0) return { flushed: next, repeated };
  const result: FlushOutcome = {
    flush: { reason, summary, messageIds: fresh.map((m) => m.id) },
    memories,
  };
  if (!outcome.ok) result.error = outcome.error;
  else if (outcome.result.usage) result.usage = outcome.result.usage;
  return { outcome: result, flushed: next, repeated };
}
