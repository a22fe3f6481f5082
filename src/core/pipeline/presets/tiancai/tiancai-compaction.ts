/**
 * tiancai's compaction (SEED-RULES §5.4, §5.6): when the (usage-anchored) estimate reaches the effective
 * limit, split by a keep-recent token budget (`min(keepRecentTokens, floor(limit/2))`, newest message
 * always kept) or by count; summarise the visible old messages (tool results through
 * `trimTextWithTail(…, 1800)`, 003 transcript); return
 * `[ user("[Previous conversation summary]\n\n{summary}") ] + compactToolResultsInRecent(recent)`.
 * Everything fitting the keep budget is a silent no-op, as in 003. The recommended pairing fix moves
 * the boundary so no call is separated from its result (`pairing: 'none'` reproduces 003's cut).
 * With recall on, the summary's first line is followed by `(the messages it stands for, whole:
 * reread('s…'))` and each digest line ends with its output's `reread('m…')`.
 */
import * as z from 'zod/mini';
import {
  effectiveTokenLimit,
  keepRecentBudget,
  type LimitConfig,
  shouldCompact,
} from '../../../budget/budget.ts';
import { outputText } from '../../../messages/text.ts';
import type { Message, Part } from '../../../messages/types.ts';
import { trimTextWithTail } from '../../../text/trim.ts';
import { LIMITS } from '../../limits.ts';
import {
  compactionEvents,
  contextTokens,
  journalEntry,
  leadingSystemCount,
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
import { recallRef, rereadNote } from '../../stages/recall-hints.ts';
import type { JournalEntry, Stage, StageResult } from '../../types.ts';
import { compactToolResultsInRecent } from './recent-digest.ts';

export const TIANCAI_COMPACTION_DEFAULTS = {
  reserveTokens: 16384,
  maxTokens: 8000,
  maxMessages: 50,
  keepRecent: 5,
  keepRecentTokens: 20000,
  toolCallCutoff: 10,
  autoCompact: true,
  trigger: 'auto',
  pairing: 'safe',
  toolResultRunes: 1800,
} as const;

export interface TiancaiCompactionOptions {
  /** Model window; `0` = unset (limit falls back to `maxTokens`). @default ctx.budget.contextWindow */
  contextWindow?: number;
  /** @default 16384 */
  reserveTokens?: number;
  /** @default 8000 */
  maxTokens?: number;
  /** @default 50 */
  maxMessages?: number;
  /** Messages kept when `keepRecentTokens ≤ 0`. @default 5 */
  keepRecent?: number;
  /** @default 20000 */
  keepRecentTokens?: number;
  /** Visible tool results allowed in the kept part before the digest. @default 10 */
  toolCallCutoff?: number;
  /** @default true */
  autoCompact?: boolean;
  /**
   * `auto`: 003's `ShouldCompact` (events say `context-limit`); `always`: compact whenever run (manual,
   * events say `forced`); `recovery`: compact whenever run, for a context-length error, with 003's event
   * trigger `context_limit_recovery` (§5.4). @default 'auto'
   */
  trigger?: 'auto' | 'always' | 'recovery';
  /** `safe`: move the boundary to keep tool pairs together; `none`: 003's raw cut. @default 'safe' */
  pairing?: 'safe' | 'none';
  /** Runes of each old tool result given to the summarizer. @default 1800 */
  toolResultRunes?: number;
}

const int = z.int().check(z.gte(0), z.lte(LIMITS.tokens));
export const tiancaiCompactionOptionsSchema = z.strictObject({
  contextWindow: z.optional(int.check(z.nonnegative())),
  reserveTokens: z._default(int, TIANCAI_COMPACTION_DEFAULTS.reserveTokens),
  maxTokens: z._default(int, TIANCAI_COMPACTION_DEFAULTS.maxTokens),
  maxMessages: z._default(int, TIANCAI_COMPACTION_DEFAULTS.maxMessages),
  keepRecent: z._default(int, TIANCAI_COMPACTION_DEFAULTS.keepRecent),
  keepRecentTokens: z._default(int, TIANCAI_COMPACTION_DEFAULTS.keepRecentTokens),
  toolCallCutoff: z._default(int, TIANCAI_COMPACTION_DEFAULTS.toolCallCutoff),
  autoCompact: z._default(z.boolean(), TIANCAI_COMPACTION_DEFAULTS.autoCompact),
  trigger: z._default(z.enum(['auto', 'always', 'recovery']), TIANCAI_COMPACTION_DEFAULTS.trigger),
  pairing: z._default(z.enum(['safe', 'none']), TIANCAI_COMPACTION_DEFAULTS.pairing),
  toolResultRunes: z._default(
    z.int().check(z.positive(), z.lte(LIMITS.chars)),
    TIANCAI_COMPACTION_DEFAULTS.toolResultRunes,
  ),
});

const NAME = 'tiancai-compaction';
/** The `trigger` of the compaction events, per option (003 labels the overflow recovery's). */
const EVENT_TRIGGER = {
  auto: 'context-limit',
  always: 'forced',
  recovery: 'context_limit_recovery',
} as const;
export const PREVIOUS_SUMMARY_PREFIX = '[Previous conversation summary]\n\n';

/**
 * 003 `splitMessagesByTokenBudget`: walking newest → oldest, stop before the first message that would
 * push the sum over `budget` (the newest is always taken). Returns the start of the recent part.
 */
export function splitByTokenBudget(
  messages: readonly Message[],
  budget: number,
  count: (m: Message) => number,
  from = 0,
): number {
  let sum = 0;
  let start = messages.length;
  for (let i = messages.length - 1; i >= from; i--) {
    const t = count(messages[i]!);
    if (i < messages.length - 1 && sum + t > budget) break;
    sum += t;
    start = i;
  }
  return start;
}

/** Old messages as the summarizer sees them: visible only, tool results through `trimTextWithTail`. */
function summaryInput(messages: readonly Message[], runes: number): Message[] {
  return messages
    .filter((m) => m.meta?.agentVisible !== false)
    .map((m) => {
      if (!m.parts.some((p) => p.type === 'tool-result')) return m;
      const parts: Part[] = m.parts.map((p) =>
        p.type === 'tool-result'
          ? { ...p, output: trimTextWithTail(outputText(p.output) || '(empty output)', runes) }
          : p,
      );
      return { ...m, parts };
    });
}

/** 003's summary transcript: `[User]: `, `[Assistant thinking]: `, `[Assistant]: `, tool calls, results; blank-line separated. */
export function tiancaiTranscript(messages: readonly Message[]): string {
  const blocks: string[] = [];
  for (const m of messages) {
    const text = m.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
    if (m.role === 'user' || m.role === 'system') {
      if (text !== '') blocks.push(`[User]: ${text}`);
    } else if (m.role === 'assistant') {
      const thinking = m.parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])).join('\n');
      if (thinking !== '') blocks.push(`[Assistant thinking]: ${thinking}`);
      if (text !== '') blocks.push(`[Assistant]: ${text}`);
      const calls = m.parts.flatMap((p) =>
        p.type === 'tool-call' ? [`${p.name}(${JSON.stringify(p.args)})`] : [],
      );
      if (calls.length > 0) blocks.push(`[Assistant tool calls]: ${calls.join('; ')}`);
    }
    for (const p of m.parts)
      if (p.type === 'tool-result')
        blocks.push(`${p.name ? `[Tool result ${p.name}]` : '[Tool result]'}: ${outputText(p.output)}`);
  }
  return blocks.join('\n\n');
}

export function tiancaiCompaction(options: TiancaiCompactionOptions = {}): Stage {
  const o = parseStageOptions(tiancaiCompactionOptionsSchema, options, NAME);
  return {
    name: NAME,
    async run(input, ctx): Promise<StageResult> {
      const tokensBefore = sumTokens(input, ctx.counter);
      const unchanged = (detail: string) => unchangedResult(NAME, input, tokensBefore, 'noop', detail);
      const limits: LimitConfig = {
        contextWindow: o.contextWindow ?? ctx.budget.contextWindow,
        reserveTokens: o.reserveTokens,
        maxTokens: o.maxTokens,
        maxMessages: o.maxMessages,
        keepRecent: o.keepRecent,
        keepRecentTokens: o.keepRecentTokens,
        autoCompact: o.autoCompact,
      };
      const estimate = contextTokens(input, ctx, true);
      if (o.trigger === 'auto' && !shouldCompact(limits, estimate, input.length))
        return unchanged(`below the limit (${estimate} < ${effectiveTokenLimit(limits) ?? 'none'})`);
      if (input.length === 0) return unchanged('empty');

      const lead = leadingSystemCount(input);
      const keep = keepRecentBudget(limits);
      let start =
        'tokens' in keep
          ? splitByTokenBudget(input, keep.tokens, (m) => ctx.counter.countMessage(m), lead)
          : input.length - lead <= keep.messages
            ? lead
            : input.length - keep.messages;
      if (o.pairing === 'safe' && start > lead) {
        const safe = safeCuts(input);
        const later = nearestSafeCut(safe, start, start, 'later');
        start =
          later !== undefined && later < input.length
            ? later
            : (nearestSafeCut(safe, start, lead, 'earlier') ?? lead);
      }
      if (start <= lead) return unchanged('everything fits the keep-recent budget');

      const range = Array.from({ length: start - lead }, (_, i) => lead + i);
      const kept = protectedIndices(input, range, ctx.excludeTools, {
        keepCrossingPairs: o.pairing === 'safe',
      });
      const folded = range.filter((i) => !kept.has(i)).map((i) => input[i]!);
      const visible = summaryInput(folded, o.toolResultRunes);
      const before = { messages: input.length, tokens: tokensBefore };
      const fail = (error: string): StageResult => ({
        messages: input as Message[],
        report: report(NAME, 'failed', tokensBefore, tokensBefore, {
          detail: 'compaction failed; input kept',
          error,
        }),
        journal: [],
        events: compactionEvents(NAME, EVENT_TRIGGER[o.trigger], before, before, error),
        state: { ...ctx.state, compactionFailures: ctx.state.compactionFailures + 1 },
      });
      if (visible.length === 0 && ctx.state.lastSummary === undefined)
        return fail('no visible messages to summarize');

      const request: Parameters<typeof trySummarize>[1] = {
        purpose: 'compaction',
        preset: ctx.preset,
        messages: visible,
        transcript: tiancaiTranscript(visible),
      };
      if (ctx.state.lastSummary !== undefined) request.previousSummary = ctx.state.lastSummary;
      const outcome = visible.length === 0 ? undefined : await trySummarize(ctx, request);
      if (outcome && !outcome.ok) return fail(outcome.error);
      const summary = outcome ? outcome.result.summary.trim() : (ctx.state.lastSummary ?? '');
      if (summary === '') return fail('empty summary');

      // With recall on, the summary names the span it folds (the messages the model still saw), as
      // the call that reads it back whole; the digest names each archived output's ref.
      const summarized = folded.filter((m) => m.meta?.agentVisible !== false);
      const span = recallRef(ctx, summarized);
      const head = span
        ? `${PREVIOUS_SUMMARY_PREFIX.trimEnd()}\n${rereadNote(span, 'the messages it stands for, whole')}\n\n`
        : PREVIOUS_SUMMARY_PREFIX;
      const summaryMessage = textMessage(ctx.ids.next('summary'), 'user', `${head}${summary}`, 'summary');
      const digest = compactToolResultsInRecent(input.slice(start), o.toolCallCutoff, {
        ids: ctx.ids,
        excludeTools: ctx.excludeTools,
        refOf: (m) => recallRef(ctx, [m]),
      });
      const out: Message[] = [
        ...input.slice(0, lead),
        summaryMessage,
        ...range.filter((i) => kept.has(i)).map((i) => input[i]!),
        ...digest.messages,
      ];
      const journal: JournalEntry[] = folded.map((m) =>
        m.meta?.agentVisible === false
          ? journalEntry(NAME, 'removed', m, ctx.counter, { ref: recallRef(ctx, [m]) })
          : journalEntry(NAME, 'summarized', m, ctx.counter, { replacementId: summaryMessage.id, ref: span }),
      );
      journal.push(journalEntry(NAME, 'inserted', summaryMessage, ctx.counter));
      if (digest.digest) {
        const digestId = digest.digest.id;
        for (const m of digest.archived)
          journal.push(
            journalEntry(NAME, 'archived', m, ctx.counter, {
              replacementId: digestId,
              ref: recallRef(ctx, [m]),
            }),
          );
        journal.push(journalEntry(NAME, 'inserted', digest.digest, ctx.counter));
      }
      const tokensAfter = sumTokens(out, ctx.counter);
      const extra: Parameters<typeof report>[4] = {
        detail: `${folded.length} messages compacted, ${input.length - start} kept`,
      };
      if (outcome?.ok && outcome.result.usage) extra.usage = outcome.result.usage;
      const result: StageResult = {
        messages: out,
        report: report(NAME, 'applied', tokensBefore, tokensAfter, extra),
        journal,
        events: compactionEvents(NAME, EVENT_TRIGGER[o.trigger], before, {
          messages: out.length,
          tokens: tokensAfter,
        }),
        state: {
          ...ctx.state,
          compactionFailures: 0,
          lastSummary: summary,
          lastCompactionTokens: contextTokens(out, ctx),
        },
      };
      const memories = outcome?.ok ? outcome.result.memories : undefined;
      if (memories && memories.length > 0) {
        result.memories = memories;
        result.events.push({ type: 'memory-extracted', stage: NAME, count: memories.length });
      }
      return result;
    },
  };
}
