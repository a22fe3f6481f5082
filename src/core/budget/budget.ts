/**
 * One budget model (SEED-RULES §4.5): `window − reserveOutput` = usable input; warning, auto-compact
 * and blocking buffers below it give the levels `ok → warn → compact → block`.
 */
import * as z from 'zod/mini';
import { CtxError } from '../errors.ts';
import { parseWith } from '../messages/schema.ts';
import { LIMITS } from '../pipeline/limits.ts';
import { budgetOf } from './levels.ts';
import type { BudgetConfig, ContextBudget } from './types.ts';

export type { BudgetConfig, BudgetLevel, ContextBudget } from './types.ts';

export const BUDGET_DEFAULTS = {
  contextWindow: 200_000,
  reserveOutput: 16_000,
  warningBuffer: 24_000,
  autoCompactBuffer: 12_000,
  blockingBuffer: 3_000,
} as const satisfies BudgetConfig;

const tokens = z.int().check(z.nonnegative(), z.lte(LIMITS.tokens));
export const budgetConfigSchema = z.strictObject({
  contextWindow: z.optional(z.int().check(z.positive(), z.lte(LIMITS.tokens))),
  reserveOutput: z.optional(tokens),
  warningBuffer: z.optional(tokens),
  autoCompactBuffer: z.optional(tokens),
  blockingBuffer: z.optional(tokens),
});

export function createBudget(config: Partial<BudgetConfig> = {}): ContextBudget {
  const c = { ...BUDGET_DEFAULTS, ...parseWith(budgetConfigSchema, config, ['budget']) } as BudgetConfig;
  // KosmoKrator clamps a buffer larger than the usable input to 1 (its ContextBudgetTest): a small
  // window with the default buffers works, every send at block level. Only a window that does not
  // exceed the output reserve leaves nothing at all to send.
  if (c.contextWindow <= c.reserveOutput) {
    throw new CtxError(
      'invalid_config',
      `a ${c.contextWindow}-token window leaves nothing to send after reserveOutput ${c.reserveOutput}; the smallest that works is ${c.reserveOutput + 1}`,
      { path: 'budget.contextWindow' },
    );
  }
  return budgetOf(c);
}

/**
 * The smallest window that leaves anything to send: one token above the output reserve (the levels
 * of a window this small clamp to 1, as KosmoKrator's do).
 */
export function smallestWindow(c: Pick<BudgetConfig, 'reserveOutput'>): number {
  return c.reserveOutput + 1;
}

/** 003's trigger configuration (SEED-RULES §5.4). */
export interface LimitConfig {
  /** @default 0 (unset) */
  contextWindow?: number;
  /** @default 16384; ≤ 0 → 16384 */
  reserveTokens?: number;
  /** @default 8000 */
  maxTokens?: number;
  /** @default 50 */
  maxMessages?: number;
  /** @default 20000 */
  keepRecentTokens?: number;
  /** @default 5 */
  keepRecent?: number;
  /** @default true */
  autoCompact?: boolean;
}

/** `window − reserve` when both make sense, else `maxTokens` when > 0, else no limit. */
export function effectiveTokenLimit(c: LimitConfig): number | undefined {
  const window = c.contextWindow ?? 0;
  const reserve = (c.reserveTokens ?? 16384) > 0 ? (c.reserveTokens ?? 16384) : 16384;
  if (window > 0 && window - reserve > 0) return window - reserve;
  const max = c.maxTokens ?? 8000;
  return max > 0 ? max : undefined;
}

/** With a token limit: compact iff tokens ≥ limit. Without: iff maxMessages > 0 and count ≥ maxMessages. */
export function shouldCompact(c: LimitConfig, tokens: number, messageCount: number): boolean {
  if (c.autoCompact === false) return false;
  const limit = effectiveTokenLimit(c);
  if (limit !== undefined) return tokens >= limit;
  const maxMessages = c.maxMessages ?? 50;
  return maxMessages > 0 && messageCount >= maxMessages;
}

/**
 * Keep-recent budget: `{ tokens }` = `min(keepRecentTokens, floor(limit / 2))`, or `{ messages }`
 * (keepRecent, ≤ 0 → 5) when keepRecentTokens ≤ 0.
 */
export function keepRecentBudget(c: LimitConfig): { tokens: number } | { messages: number } {
  const keepTokens = c.keepRecentTokens ?? 20000;
  if (keepTokens <= 0) {
    const keep = c.keepRecent ?? 5;
    return { messages: keep > 0 ? keep : 5 };
  }
  const limit = effectiveTokenLimit(c);
  return { tokens: limit !== undefined ? Math.min(keepTokens, Math.floor(limit / 2)) : keepTokens };
}
