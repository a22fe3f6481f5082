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
import { messageDigest } from '../../messages/digest.ts';
import type { Message, ToolCallPart, ToolResultPart } from '../../messages/types.ts';
import { headCodePoints } from '../../text/trim.ts';
import { pyJsonDumps } from '../../tokens/py-json.ts';
import { codePointLength } from '../../tokens/text-stats.ts';
import { LIMITS } from '../limits.ts';
import type { JournalEntry, StageContext, StageResult } from '../types.ts';
import { recallRef, wholeSuffix } from './recall-hints.ts';
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

/** With recall on (`ref`), the notice ends with the call that reads the whole output back. */
const whole = wholeSuffix;

export function cowagentHistoricalNotice(originalLength: number, max: number, ref?: string): string {
  return `\n\n[Historical output truncated: ${originalLength} -> ${max} chars${whole(ref)}]`;
}

export function coCliTruncationMarker(length: number, ref?: string): string {
  return `\n[…truncated, ${length} chars total${whole(ref)}]`;
}

const WHOLE = "(?:; whole: reread\\('[ms][0-9a-f]{12}'\\))?";
const CO_CLI_MARKER = new RegExp(`\\n\\[…truncated, \\d+ chars total${WHOLE}\\]$`);
const COWAGENT_NOTICE = new RegExp(`\\n\\n\\[Historical output truncated: \\d+ -> \\d+ chars${WHOLE}\\]$`);

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

  // A part is cut once (null: left as it is; parts are never mutated), and a message once per set of cut parts: the run that makes an output
  // historical, and the preparation between steps that does it ahead (`ahead`), hand out the same
  // objects, whose counts and digests are kept.
  const cuts = new WeakMap<ToolResultPart, ToolResultPart | null>();
  function cut(part: ToolResultPart, ref: string | undefined): ToolResultPart | undefined {
    let r = cuts.get(part);
    if (r === undefined) {
      const output = compute(part, ref);
      r = output === undefined ? null : { ...part, output };
      cuts.set(part, r);
    }
    return r ?? undefined;
  }
  const copies = new WeakMap<Message, Message>();
  /** `m` with its cuttable results cut, or undefined when it has none. */
  function cutMessage(
    m: Message,
    calls: ReadonlyMap<string, ToolCallPart>,
    ctx: Pick<StageContext, 'excludeTools' | 'recall'>,
  ): Message | undefined {
    if (m.meta?.agentVisible === false) return undefined;
    const replaced = new Map<number, ToolResultPart>();
    let ref: string | undefined;
    m.parts.forEach((p, pi) => {
      if (p.type !== 'tool-result' || isUntouchable(m, p, calls, ctx)) return;
      ref ??= recallRef(ctx, [m]);
      const next = cut(p, ref);
      if (next) replaced.set(pi, next);
    });
    if (replaced.size === 0) return undefined;
    const kept = copies.get(m);
    if (kept?.parts.every((p, i) => p === (replaced.get(i) ?? m.parts[i]))) return kept;
    const next = replaceParts(m, replaced);
    copies.set(m, next);
    return next;
  }

  function compute(part: ToolResultPart, ref: string | undefined): string | undefined {
    if (mode === 'cowagent') {
      if (typeof part.output !== 'string' || COWAGENT_NOTICE.test(part.output)) return undefined;
      const len = codePointLength(part.output);
      if (len <= maxChars) return undefined;
      return headCodePoints(part.output, maxChars) + cowagentHistoricalNotice(len, maxChars, ref);
    }
    const text = typeof part.output === 'string' ? part.output : pyJsonDumps(part.output);
    if (typeof part.output === 'string' && CO_CLI_MARKER.test(text)) return undefined;
    const len = codePointLength(text);
    if (len <= maxChars) return undefined;
    return headCodePoints(text, maxChars) + coCliTruncationMarker(len, ref);
  }

  const boundaryOf = (messages: readonly Message[]) =>
    mode === 'cowagent' ? lastUserTextIndex(messages) : Math.max(0, messages.length - protectLast);

  return {
    name,
    // Between steps: the outputs not historical yet (after the last user text), cut, counted and
    // digested now, so that the step a user message makes them historical finds them kept.
    ahead(messages, ctx) {
      if (maxChars <= 0) return;
      const calls = indexToolCalls(messages);
      for (let i = Math.max(0, boundaryOf(messages)); i < messages.length; i++) {
        const next = cutMessage(messages[i]!, calls, ctx);
        if (next) {
          ctx.counter.countMessage(next);
          messageDigest(next);
        }
      }
    },
    run(messages: readonly Message[], ctx: StageContext): StageResult {
      if (maxChars <= 0) return noop(name, messages, ctx, 'disabled');
      const boundary = boundaryOf(messages);
      if (boundary <= 0) return noop(name, messages, ctx, 'no historical tool results');
      const calls = indexToolCalls(messages);
      let output: Message[] | undefined;
      const journal: JournalEntry[] = [];
      for (let i = 0; i < boundary; i++) {
        const m = messages[i]!;
        const next = cutMessage(m, calls, ctx);
        if (!next) continue;
        output ??= messages.slice();
        output[i] = next;
        journal.push({
          stage: name,
          action: 'truncated',
          messageId: m.id,
          tokensBefore: ctx.counter.countMessage(m),
          tokensAfter: ctx.counter.countMessage(next),
          location: SESSION_LOG_LOCATION,
          recover: sessionLogRecover(m.id),
          ...(ctx.recall ? { ref: recallRef(ctx, [m])! } : {}),
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
