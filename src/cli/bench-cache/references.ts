/**
 * The managers ctxkit is priced beside, on the same steps and counts:
 * - append-then-compact — what Claude Code and Codex do: append only; when the send would cross the
 *   auto-compact level, replace everything but the newest 20% of usable input (whole messages) with a
 *   2,000-token summary. Between compactions every send extends the previous one. Its summary is asked
 *   of the model on the history as it stands, with the summary instruction after it: the previous send
 *   is a cached prefix of that call.
 * - sliding window — the newest messages that fit usable input (the oldest dropped, tool steps not
 *   kept whole): the common naive manager.
 * - no management — the whole history, where the session fits usable input.
 */
import type { Message } from '../../core/index.ts';
import type { PricedSend } from './ledger.ts';

/** Tokens of the reference's summary. */
export const REFERENCE_SUMMARY_TOKENS = 2_000;
/** Share of usable input the reference keeps verbatim after a compaction. */
export const REFERENCE_KEEP_SHARE = 0.2;

export interface Sizing {
  key(m: Message): string;
  tokens(m: Message): number;
  overhead: number;
}

export interface ReferenceLimits {
  usable: number;
  /** The auto-compact level of ctxkit's budget at the same window. */
  compactAt: number;
  /** Tokens of the summary instruction its compaction call adds after the history. @default 0 */
  instruction?: number;
}

function sendOf(
  list: readonly Message[],
  s: Sizing,
  compacted: boolean,
  lead?: { key: string; size: number },
): PricedSend {
  const keys = list.map((m) => s.key(m));
  const sizes = list.map((m) => s.tokens(m));
  if (lead) {
    keys.unshift(lead.key);
    sizes.unshift(lead.size);
  }
  return { keys, sizes, overhead: s.overhead, compacted };
}

/** Append-then-compact: one manager over a session, fed the history before each step. */
export function appendThenCompact(limits: ReferenceLimits, s: Sizing) {
  let start = 0;
  let summaries = 0;
  let sent = 0;
  return (history: readonly Message[]): PricedSend => {
    const summary =
      summaries > 0 ? { key: `summary:${summaries}`, size: REFERENCE_SUMMARY_TOKENS } : undefined;
    let total = s.overhead + (summary?.size ?? 0);
    for (let i = start; i < history.length; i++) total += s.tokens(history[i]!);
    if (total <= limits.compactAt) {
      sent = total;
      return sendOf(history.slice(start), s, false, summary);
    }
    // The summary call: the history as it stands (the previous send, cached, and what arrived since),
    // then the instruction; the answer is the summary.
    const summaryCall = {
      cached: Math.min(sent, total),
      fresh: Math.max(0, total - sent) + (limits.instruction ?? 0),
      output: REFERENCE_SUMMARY_TOKENS,
      cacheable: true,
    };
    let keep = 0;
    let k = history.length;
    while (k > start && keep + s.tokens(history[k - 1]!) <= REFERENCE_KEEP_SHARE * limits.usable)
      keep += s.tokens(history[--k]!);
    start = k;
    summaries++;
    const send = sendOf(history.slice(start), s, true, {
      key: `summary:${summaries}`,
      size: REFERENCE_SUMMARY_TOKENS,
    });
    sent = send.overhead + send.sizes.reduce((a, b) => a + b, 0);
    return { ...send, summaryCall };
  };
}

/** The newest messages that fit usable input. */
export function slidingWindow(limits: ReferenceLimits, s: Sizing) {
  return (history: readonly Message[]): PricedSend => {
    let total = s.overhead;
    let k = history.length;
    while (k > 0 && total + s.tokens(history[k - 1]!) <= limits.usable) total += s.tokens(history[--k]!);
    if (k === history.length && k > 0) k--; // the newest message is sent whatever its size
    return sendOf(history.slice(k), s, false);
  };
}

/** The whole history. */
export function noManagement(s: Sizing) {
  return (history: readonly Message[]): PricedSend => sendOf(history, s, false);
}
