/** The options of ctxkit's compaction stage (`compaction.ts`), their defaults and their schema. */
import * as z from 'zod/mini';
import { LIMITS } from '../limits.ts';

export const COMPACTION_DEFAULTS = {
  keepRecentTokens: 60_000,
  keepRecentRatio: 0.75,
  targetRatio: 0.55,
  charsPerToken: 3.5,
  summaryRole: 'user',
  loopGuardRatio: 0.6,
  maxFailures: 3,
  maxSummaryChars: 24_000,
  referenceIndexShare: 0.35,
  trigger: 'always',
  instructionsShare: 0,
} as const;

export interface CompactionOptions {
  /** Most tokens kept verbatim at the end (the newest step is kept whatever its size). @default 60000 */
  keepRecentTokens?: number;
  /**
   * …and at most this share of what the compaction target (`targetRatio × trigger`) leaves above the
   * fixed part. @default from 0.25 (4K tokens of room or less) to 0.75 (16K or more), see `keepShare`
   */
  keepRecentRatio?: number;
  /**
   * The context after compaction aims at this share of the trigger (below the loop guard's line): the
   * kept part takes up to `keepRecentRatio` of it, the summary is asked to fill the rest. @default 0.55
   */
  targetRatio?: number;
  /**
   * The context after compaction aims at this share of usable input instead (system prompt and tools
   * included), when set; `targetRatio` is then unused. The `default` preset sets 0.3 (docs/cache.md).
   */
  fill?: number;
  /** Characters per token assumed when turning the summary's token budget into `maxOutputChars`. @default 3.5 */
  charsPerToken?: number;
  /** Role of the summary message. @default 'user' */
  summaryRole?: 'user' | 'system';
  /** Tokens at which compaction is due; the loop guard compares against it. @default ctx.budget.autoCompact */
  triggerTokens?: number;
  /** Share of the trigger above which the loop guard escalates. @default 0.6 */
  loopGuardRatio?: number;
  /** Consecutive failures that open the circuit breaker. @default 3 */
  maxFailures?: number;
  /** Clip the summary to at most this many characters (asked of the summarizer), whatever the budget. @default 24000 */
  maxSummaryChars?: number;
  /**
   * The most tokens a paid summarizer (one not `local`) is asked to write, when set: its answer is
   * billed at the output price, so the target's rest is kept verbatim instead (with `fill`). The
   * `default` preset sets 2,000, the size of Claude Code's and Codex's summaries.
   */
  paidSummaryTokens?: number;
  /**
   * Share of the summary's budget kept for the reference index: the summarizer is asked for the rest,
   * and what it leaves of the budget is topped up with the paths and names of the folded messages it
   * does not spell out (`appendReferenceIndex`), so a paraphrasing model cannot lose them. 0: off.
   * @default 0.35
   */
  referenceIndexShare?: number;
  /** `always`: compact whenever run (the flow gates by level); `auto`: only at or above the trigger. @default 'always' */
  trigger?: 'always' | 'auto';
  /**
   * Standing instructions (`standing-instructions.ts`): the constraint sentences of folded user
   * messages are kept verbatim in a pinned section of at most this share of the context window
   * (oldest dropped first). 0: off. @default 0 (the `default` preset sets 0.01)
   */
  instructionsShare?: number;
}

export const compactionOptionsSchema = z.strictObject({
  keepRecentTokens: z._default(
    z.int().check(z.nonnegative(), z.lte(LIMITS.tokens)),
    COMPACTION_DEFAULTS.keepRecentTokens,
  ),
  keepRecentRatio: z.optional(z.number().check(z.gt(0), z.lte(1))),
  targetRatio: z._default(z.number().check(z.gt(0), z.lte(1)), COMPACTION_DEFAULTS.targetRatio),
  fill: z.optional(z.number().check(z.gte(0.05), z.lte(0.95))),
  paidSummaryTokens: z.optional(z.number().check(z.int(), z.gte(64), z.lte(1_000_000))),
  charsPerToken: z._default(
    z.number().check(z.gt(0), z.lte(LIMITS.charsPerToken)),
    COMPACTION_DEFAULTS.charsPerToken,
  ),
  summaryRole: z._default(z.enum(['user', 'system']), COMPACTION_DEFAULTS.summaryRole),
  triggerTokens: z.optional(z.int().check(z.positive(), z.lte(LIMITS.tokens))),
  loopGuardRatio: z._default(z.number().check(z.gt(0), z.lte(1)), COMPACTION_DEFAULTS.loopGuardRatio),
  maxFailures: z._default(z.int().check(z.positive(), z.lte(LIMITS.small)), COMPACTION_DEFAULTS.maxFailures),
  maxSummaryChars: z._default(
    z.int().check(z.positive(), z.lte(LIMITS.chars)),
    COMPACTION_DEFAULTS.maxSummaryChars,
  ),
  referenceIndexShare: z._default(
    z.number().check(z.gte(0), z.lt(1)),
    COMPACTION_DEFAULTS.referenceIndexShare,
  ),
  trigger: z._default(z.enum(['always', 'auto']), COMPACTION_DEFAULTS.trigger),
  instructionsShare: z._default(
    z.number().check(z.gte(0), z.lte(0.1)),
    COMPACTION_DEFAULTS.instructionsShare,
  ),
});
