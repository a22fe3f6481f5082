/**
 * Historical tool-result truncation: long tool outputs from earlier turns are cut to their head.
 * - `cowagent` (000 §1.4): string outputs over 20000 characters before the last user text message keep
 *   their first 20000 characters plus `\n\n[Historical output truncated: {len} -> 20000 chars]`.
 * - `co-cli` (001 §3.1): every output before the last 2 messages whose text (strings as is, anything
 *   else as Python `json.dumps`) is over 2000 characters becomes its first 2000 characters plus
 *   `\n[…truncated, {len} chars total]`. Content already ending with that marker is skipped, so a
 *   second run changes nothing (the recommended fix of co-cli's drifting marker). The same skip applies
 *   to outputs already ending with the 000 notice, so both modes are idempotent.
 * Lengths are code points (Python `len`). Pinned messages and `excludeTools` results are left alone.
 */
import * as z from 'zod/mini';
import type { Message, ToolResultPart } from '../../messages/types.ts';
import { headCodePoints } from '../../text/trim.ts';
import { pyJsonDumps } from '../../tokens/py-json.ts';
import { codePointLength } from '../../tokens/text-stats.ts';
import { LIMITS } from '../limits.ts';
import type { JournalEntry, StageContext, StageResult } from '../types.ts';
import {
  applied,
  indexToolCalls,
  isUntouchable,
  noop,
  parseOptions,
  replaceParts,
  SESSION_LOG_LOCATION,
  type SyncStage,
  sessionLogRecover,
} from './stage-kit.ts';

export const historicalTruncationOptionsSchema = z.strictObject({
  /** Which system to reproduce. @default 'cowagent' */
  mode: z.optional(z.enum(['cowagent', 'co-cli'])),
  /** Characters kept. `0` disables the stage. @default 20000 (`co-cli`: 2000) */
  maxChars: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.chars))),
  /** `co-cli`: number of trailing messages never touched. @default 2 */
  protectLast: z.optional(z.int().check(z.nonnegative(), z.lte(LIMITS.count))),
});

export type HistoricalTruncationOptions = z.input<typeof historicalTruncationOptionsSchema>;

export const HISTORICAL_TRUNCATION_DEFAULTS = {
  cowagentMaxChars: 20000,
  coCliMaxChars: 2000,
  protectLast: 2,
} as const;

export function cowagentHistoricalNotice(originalLength: number, max: number): string {
  return `\n\n[Historical output truncated: ${originalLength} -> ${max} chars]`;
}

export function coCliTruncationMarker(length: number): string {
  return `\n[…truncated, ${length} chars total]`;
}

const CO_CLI_MARKER = /\n\[…truncated, \d+ chars total\]$/;
const COWAGENT_NOTICE = /\n\n\[Historical output truncated: \d+ -> \d+ chars\]$/;

/** Index of the last user message with a text part (000's current-turn boundary), or -1. */
function lastUserTextIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && m.parts.some((p) => p.type === 'text')) return i;
  }
  return -1;
}

export function createHistoricalTruncation(options: HistoricalTruncationOptions = {}): SyncStage {
  const o = parseOptions(historicalTruncationOptionsSchema, options, 'historicalTruncation');
  const mode = o.mode ?? 'cowagent';
  const d = HISTORICAL_TRUNCATION_DEFAULTS;
  const maxChars = o.maxChars ?? (mode === 'cowagent' ? d.cowagentMaxChars : d.coCliMaxChars);
  const protectLast = o.protectLast ?? d.protectLast;
  const name = 'historical-truncation';

  /** Per part: the new output, or null to leave it (parts are never mutated). */
  const cache = new WeakMap<ToolResultPart, string | null>();
  function cut(part: ToolResultPart): string | undefined {
    let r = cache.get(part);
    if (r === undefined) {
      r = compute(part) ?? null;
      cache.set(part, r);
    }
    return r ?? undefined;
  }

  function compute(part: ToolResultPart): string | undefined {
    if (mode === 'cowagent') {
      if (typeof part.output !== 'string' || COWAGENT_NOTICE.test(part.output)) return undefined;
      const len = codePointLength(part.output);
      if (len <= maxChars) return undefined;
      return headCodePoints(part.output, maxChars) + cowagentHistoricalNotice(len, maxChars);
    }
    const text = typeof part.output === 'string' ? part.output : pyJsonDumps(part.output);
    if (typeof part.output === 'string' && CO_CLI_MARKER.test(text)) return undefined;
    const len = codePointLength(text);
    if (len <= maxChars) return undefined;
    return headCodePoints(text, maxChars) + coCliTruncationMarker(len);
  }

  return {
    name,
    run(messages: readonly Message[], ctx: StageContext): StageResult {
      if (maxChars <= 0) return noop(name, messages, ctx, 'disabled');
      const boundary =
        mode === 'cowagent' ? lastUserTextIndex(messages) : Math.max(0, messages.length - protectLast);
      if (boundary <= 0) return noop(name, messages, ctx, 'no historical tool results');
      const calls = indexToolCalls(messages);
      let output: Message[] | undefined;
      const journal: JournalEntry[] = [];
      for (let i = 0; i < boundary; i++) {
        const m = messages[i]!;
        if (m.meta?.agentVisible === false) continue;
        let replaced: Map<number, ToolResultPart> | undefined;
        m.parts.forEach((p, pi) => {
          if (p.type !== 'tool-result' || isUntouchable(m, p, calls, ctx)) return;
          const next = cut(p);
          if (next === undefined) return;
          replaced ??= new Map();
          replaced.set(pi, { ...p, output: next });
        });
        if (!replaced) continue;
        output ??= messages.slice();
        const next = replaceParts(m, replaced);
        output[i] = next;
        journal.push({
          stage: name,
          action: 'truncated',
          messageId: m.id,
          tokensBefore: ctx.counter.countMessage(m),
          tokensAfter: ctx.counter.countMessage(next),
          location: SESSION_LOG_LOCATION,
          recover: sessionLogRecover(m.id),
        });
      }
      if (!output) return noop(name, messages, ctx, `no tool output over ${maxChars} chars`);
      return applied(
        name,
        messages,
        output,
        ctx,
        journal,
        `${journal.length} message(s) cut to ${maxChars} chars`,
      );
    },
  };
}
