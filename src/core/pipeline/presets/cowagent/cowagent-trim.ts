/**
 * CowAgent's trimming (SEED-RULES §1.6–1.8), in order: turn-count trimming (more than
 * `maxContextTurns` turns → the oldest `floor(n/2)` go), then token-budget trimming on the survivors
 * (fewer than 5 turns → every turn compressed to text; otherwise the oldest `floor(n/2)` go, once).
 * Every drop flushes the dropped messages to memory and plans a summary injection into the first kept
 * user message. CowAgent computes that summary on a background thread; our runs are sequential, so the
 * summary is computed in this run, recorded as a `PendingInjection`, and applied from the NEXT run on
 * by `apply-pending-injections` (the first stage of the `cowagent` preset). With recall on, the
 * injected summary ends with the call that reads the dropped messages back whole
 * (`(the messages it stands for, whole: reread('s…'))`).
 */
import * as z from 'zod/mini';
import { messageText } from '../../../messages/text.ts';
import { segmentTurns, type Turn } from '../../../messages/turns.ts';
import type { Message } from '../../../messages/types.ts';
import type { ExtractedMemory } from '../../../ports.ts';
import { LIMITS } from '../../limits.ts';
import {
  compactionEvents,
  journalEntry,
  leadingSystemCount,
  parseStageOptions,
  protectedIndices,
  report,
  safeCuts,
  sumTokens,
  unchangedResult,
} from '../../stages/compaction-support.ts';
import { recallRef, rereadNote } from '../../stages/recall-hints.ts';
import type {
  JournalEntry,
  MemoryFlush,
  PendingInjection,
  PipelineEvent,
  Stage,
  StageContext,
  StageResult,
} from '../../types.ts';
import { flushToMemory } from './memory-flush.ts';

export const COWAGENT_TRIM_DEFAULTS = {
  maxContextTurns: 20,
  maxContextTokens: 50_000,
  compressThreshold: 5,
  memoryFlush: true,
} as const;

export interface CowagentTrimOptions {
  /** Turn limit; trimming runs when there are strictly more turns. @default 20 */
  maxContextTurns?: number;
  /** Token budget for messages + system prompt (tool schemas not counted, as in 000). @default 50000 */
  maxContextTokens?: number;
  /** Below this many turns, token trimming compresses every turn to text instead of dropping. @default 5 */
  compressThreshold?: number;
  /** Flush dropped turns to memory and plan the summary injection (000 with a memory manager). @default true */
  memoryFlush?: boolean;
}

export const cowagentTrimOptionsSchema = z.strictObject({
  maxContextTurns: z._default(
    z.int().check(z.positive(), z.lte(LIMITS.count)),
    COWAGENT_TRIM_DEFAULTS.maxContextTurns,
  ),
  maxContextTokens: z._default(
    z.int().check(z.positive(), z.lte(LIMITS.tokens)),
    COWAGENT_TRIM_DEFAULTS.maxContextTokens,
  ),
  compressThreshold: z._default(
    z.int().check(z.positive(), z.lte(LIMITS.count)),
    COWAGENT_TRIM_DEFAULTS.compressThreshold,
  ),
  memoryFlush: z._default(z.boolean(), COWAGENT_TRIM_DEFAULTS.memoryFlush),
});

const NAME = 'cowagent-trim';

interface Work {
  messages: Message[];
  journal: JournalEntry[];
  events: PipelineEvent[];
  memories: ExtractedMemory[];
  flushes: MemoryFlush[];
  injections: PendingInjection[];
  details: string[];
  errors: string[];
  /** The flushed-text record (000 §2.3), updated by every flush of this run. */
  flushed: string[] | undefined;
  /** The last summary planned for injection, as the summarizer wrote it (without a reread note). */
  lastSummary?: string;
}

function turnsOf(messages: readonly Message[]): { lead: number; turns: Turn[] } {
  const lead = leadingSystemCount(messages);
  const turns = segmentTurns(messages.slice(lead)).map((t) => ({
    ...t,
    start: t.start + lead,
    end: t.end + lead,
  }));
  return { lead, turns };
}

/** Drops the oldest `drop` turns (moving the cut back to a pairing-safe turn start if needed). */
async function dropOldest(
  w: Work,
  drop: number,
  trigger: string,
  ctx: StageContext,
  flush: boolean,
): Promise<void> {
  const { turns } = turnsOf(w.messages);
  const safe = safeCuts(w.messages);
  let k = drop;
  while (k > 0 && !safe[turns[k]!.start]) k--;
  if (k <= 0) {
    w.details.push(`${trigger}: no pairing-safe cut`);
    return;
  }
  const from = turns[0]!.start;
  const cut = turns[k]!.start;
  const range = Array.from({ length: cut - from }, (_, i) => from + i);
  const keep = protectedIndices(w.messages, range, ctx.excludeTools);
  const dropped = range.filter((i) => !keep.has(i)).map((i) => w.messages[i]!);
  const next = w.messages.filter((_, i) => i < from || i >= cut || keep.has(i));
  const before = { messages: w.messages.length, tokens: sumTokens(w.messages, ctx.counter) };

  // Target of the injection: first user message with a text part in the kept turns (000 §1.8).
  const target = w.messages
    .slice(cut)
    .find((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text'));
  let summaryText: string | undefined;
  // With recall on, the injected summary names the span it stands for; a turn dropped without one
  // names each message's own ref on its entry.
  const span = recallRef(ctx, dropped);
  if (flush) {
    const attempt = await flushToMemory(dropped, ctx, 'trim', w.flushed);
    w.flushed = attempt.flushed;
    const outcome = attempt.outcome;
    if (attempt.repeated > 0) w.details.push(`${trigger}: ${attempt.repeated} text(s) already flushed`);
    if (outcome) {
      w.flushes.push(outcome.flush);
      w.memories.push(...outcome.memories);
      if (outcome.error) w.errors.push(`memory flush: ${outcome.error} (rule-based fallback used)`);
      summaryText = outcome.flush.summary.trim() || undefined;
    }
    if (target && summaryText) {
      const part = target.parts.find((p) => p.type === 'text');
      const planned: PendingInjection = {
        targetId: target.id,
        originalText: part?.type === 'text' ? part.text : '',
        turnsCompacted: k,
      };
      w.events.push({ type: 'summary-pending', stage: NAME, targetId: target.id, turnsCompacted: k });
      // The background summary "arrives": same run, applied next run.
      const note = rereadNote(span, 'the messages it stands for, whole');
      w.injections.push({ ...planned, summary: note === '' ? summaryText : `${summaryText}\n\n${note}` });
      w.lastSummary = summaryText;
    }
  }
  for (const m of dropped) {
    const summarized = target !== undefined && summaryText !== undefined;
    w.journal.push(
      journalEntry(
        NAME,
        summarized ? 'summarized' : 'removed',
        m,
        ctx.counter,
        summarized ? { replacementId: target.id, ref: span } : { ref: recallRef(ctx, [m]) },
      ),
    );
  }
  w.messages = next;
  w.events.push(
    ...compactionEvents(NAME, trigger, before, {
      messages: next.length,
      tokens: sumTokens(next, ctx.counter),
    }),
  );
  w.details.push(`${trigger}: dropped ${k} of ${turns.length} turns`);
}

function textOnly(m: Message, text: string): Message {
  if (m.parts.length === 1 && m.parts[0]!.type === 'text' && m.parts[0]!.text === text) return m;
  // A text part that already says exactly this is kept as it is (with its metadata slot).
  const same = m.parts.find((p) => p.type === 'text' && p.text === text);
  return { ...m, parts: [same ?? { type: 'text', text }] };
}

/** Every turn → its first user text + the last assistant text (000 §1.7, fewer than 5 turns). */
function compressTurns(w: Work, ctx: StageContext): void {
  const { lead, turns } = turnsOf(w.messages);
  const before = { messages: w.messages.length, tokens: sumTokens(w.messages, ctx.counter) };
  const out: Message[] = w.messages.slice(0, lead);
  let changed = false;
  for (const t of turns) {
    const range = Array.from({ length: t.end - t.start }, (_, i) => t.start + i);
    const keep = protectedIndices(w.messages, range, ctx.excludeTools);
    const userIdx = range.find(
      (i) => w.messages[i]!.role === 'user' && messageText(w.messages[i]!).trim() !== '',
    );
    let assistantIdx: number | undefined;
    for (const i of range)
      if (w.messages[i]!.role === 'assistant' && messageText(w.messages[i]!).trim() !== '') assistantIdx = i;
    for (const i of range) {
      const m = w.messages[i]!;
      let kept: Message | undefined;
      if (keep.has(i)) kept = m;
      else if (i === userIdx || i === assistantIdx) kept = textOnly(m, messageText(m).trim());
      if (kept === m) {
        out.push(m);
        continue;
      }
      changed = true;
      // No stub stands for what compression drops; with recall on, each entry names its message's ref.
      const ref = recallRef(ctx, [m]);
      if (kept) {
        out.push(kept);
        w.journal.push(
          journalEntry(NAME, 'replaced', m, ctx.counter, {
            tokensAfter: ctx.counter.countMessage(kept),
            ref,
          }),
        );
      } else w.journal.push(journalEntry(NAME, 'removed', m, ctx.counter, { ref }));
    }
  }
  if (!changed) {
    w.details.push('token-budget: turns already text-only');
    return;
  }
  w.messages = out;
  w.events.push(
    ...compactionEvents(NAME, 'token-budget', before, {
      messages: out.length,
      tokens: sumTokens(out, ctx.counter),
    }),
  );
  w.details.push(`token-budget: compressed ${turns.length} turns to text`);
}

export function cowagentTrim(options: CowagentTrimOptions = {}): Stage {
  const o = parseStageOptions(cowagentTrimOptionsSchema, options, NAME);
  return {
    name: NAME,
    async run(input, ctx): Promise<StageResult> {
      const tokensBefore = sumTokens(input, ctx.counter);
      const w: Work = {
        messages: input as Message[],
        journal: [],
        events: [],
        memories: [],
        flushes: [],
        injections: [],
        details: [],
        errors: [],
        flushed: ctx.state.flushed,
      };
      const n = turnsOf(input).turns.length;
      if (n > o.maxContextTurns) await dropOldest(w, Math.floor(n / 2), 'turn-limit', ctx, o.memoryFlush);

      const systemTokens = ctx.system ? ctx.counter.countText(ctx.system) : 0;
      if (sumTokens(w.messages, ctx.counter) + systemTokens > o.maxContextTokens) {
        const m = turnsOf(w.messages).turns.length;
        if (m < o.compressThreshold) compressTurns(w, ctx);
        else await dropOldest(w, Math.floor(m / 2), 'token-budget', ctx, o.memoryFlush);
      }

      if (w.messages === input) {
        const detail = w.details.length > 0 ? w.details.join('; ') : `${n} turns within limits`;
        return unchangedResult(NAME, input, tokensBefore, 'noop', detail);
      }
      const present = new Set(w.messages.map((m) => m.id));
      const pending = [...ctx.state.pendingInjections, ...w.injections].filter((p) =>
        present.has(p.targetId),
      );
      const tokensAfter = sumTokens(w.messages, ctx.counter);
      const extra: Parameters<typeof report>[4] = { detail: w.details.join('; ') };
      if (w.errors.length > 0) extra.error = w.errors.join('; ');
      const result: StageResult = {
        messages: w.messages,
        report: report(NAME, 'applied', tokensBefore, tokensAfter, extra),
        journal: w.journal,
        events: w.events,
        state: { ...ctx.state, pendingInjections: pending },
      };
      if (w.flushed !== undefined) result.state!.flushed = w.flushed;
      if (w.memories.length > 0) {
        result.memories = w.memories;
        w.events.push({ type: 'memory-extracted', stage: NAME, count: w.memories.length });
      }
      if (w.flushes.length > 0) result.flushes = w.flushes;
      if (w.lastSummary !== undefined) result.state!.lastSummary = w.lastSummary;
      return result;
    },
  };
}
