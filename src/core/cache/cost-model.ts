/**
 * The provider's prompt cache as prices: what a send costs once the provider serves the part of it
 * that repeats the previous send from its cache, and whether rewriting something already sent pays
 * for itself. Prices are shares of the provider's uncached input price, so one model serves every
 * price table: a send of `tokens` whose first `cached` tokens are a cache hit costs
 * `cached × read + (tokens − cached) × write`.
 *
 * Defaults per dialect (provider documentation, 2026-11):
 * - `anthropic`: reads 0.1×, writes 1.25× (5-minute cache), 5-minute TTL refreshed on every hit,
 *   1,024-token minimum prefix (Sonnet/Opus; Haiku needs 2,048 — override `minPrefix`).
 * - `openai`, `responses`: automatic caching from 1,024 tokens in 128-token steps; reads 0.1× on
 *   current models (0.25×–0.5× on older ones — override `read`), no write premium before GPT-5.6
 *   (GPT-5.6 and later write at 1.25× — override `write`); kept 5–10 minutes idle (the shorter end is
 *   assumed).
 * - `gemini`: implicit caching, reads 0.1× on current models (0.25× on 2.5), no write premium, a
 *   1,024-token minimum (Flash; Pro needs 4,096).
 * A pipeline without a dialect uses Anthropic's rules: the write premium makes them the strictest.
 */
import * as z from 'zod/mini';
import { parseOptions } from '../messages/schema.ts';
import type { Dialect } from '../messages/types.ts';
import { LIMITS } from '../pipeline/limits.ts';

export interface CacheRules {
  /** Price of a cached input token, as a share of the uncached input price. */
  read: number;
  /** Price of an input token that is not a cache hit (it is written to the cache), as a share. */
  write: number;
  /** How long a cached prefix lives without a hit, in milliseconds. */
  ttlMs: number;
  /** The shortest prefix the provider caches, in tokens: below it nothing is a hit. */
  minPrefix: number;
  /** Cached prefixes count in steps of this many tokens (OpenAI: 128). */
  granularity: number;
}

const FIVE_MINUTES = 300_000;

const OPENAI: CacheRules = { read: 0.1, write: 1, ttlMs: FIVE_MINUTES, minPrefix: 1024, granularity: 128 };

export const CACHE_RULES: Readonly<Record<Dialect, Readonly<CacheRules>>> = {
  anthropic: { read: 0.1, write: 1.25, ttlMs: FIVE_MINUTES, minPrefix: 1024, granularity: 1 },
  openai: OPENAI,
  responses: OPENAI,
  gemini: { ...OPENAI, granularity: 1 },
};

/**
 * Model families whose rules differ from their dialect's (provider pricing and caching pages, 2026-11);
 * the first match wins. A name may carry a router's or a cloud's prefix (`openai/gpt-5.6`,
 * `us.anthropic.claude-haiku-4-5`).
 */
const MODEL_RULES: ReadonlyArray<readonly [RegExp, Partial<CacheRules>]> = [
  // GPT-5.6 and later: writes at 1.25×, any prefix length (no 128-token steps), kept 30 minutes.
  [/(?:^|[/.:])gpt-(?:5\.(?:[6-9]|\d\d)|[6-9])/, { write: 1.25, granularity: 1, ttlMs: 1_800_000 }],
  [/(?:^|[/.:])(?:gpt-4o|o1|o3-mini)/, { read: 0.5 }],
  [/(?:^|[/.:])(?:gpt-4\.1|o3|o4-mini)/, { read: 0.25 }],
  [/claude-(?:opus-4[-.][56]|haiku-4[-.]5)/, { minPrefix: 4096 }],
  [/claude-(?:sonnet-4[-.]6|3-haiku|3-5-haiku)/, { minPrefix: 2048 }],
  [/gemini-2\.5-pro/, { read: 0.25, minPrefix: 4096 }],
  [/gemini-2\.5/, { read: 0.25 }],
];

/** The rules `model` departs from its dialect's defaults with (none for a model not listed). */
export function modelCacheRules(model: string | undefined): Partial<CacheRules> {
  const name = model?.toLowerCase() ?? '';
  return MODEL_RULES.find(([re]) => re.test(name))?.[1] ?? {};
}

/** A week: no provider keeps a prefix longer. */
const MAX_TTL_MS = 7 * 24 * 3_600_000;

export const cacheRulesSchema = z.strictObject({
  read: z.optional(z.number().check(z.gte(0), z.lte(1))),
  write: z.optional(z.number().check(z.gte(1), z.lte(10))),
  ttlMs: z.optional(z.int().check(z.gte(0), z.lte(MAX_TTL_MS))),
  minPrefix: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.tokens))),
  granularity: z.optional(z.int().check(z.gte(1), z.lte(65_536))),
});

/** Overrides of the dialect's defaults (`PipelineOptions.cache`). */
export type CacheRulesOptions = z.input<typeof cacheRulesSchema>;

/** Validates overrides; a bad value throws `invalid_config` naming `cache.<field>`. */
export function parseCacheRules(options: unknown): CacheRulesOptions {
  return parseOptions(cacheRulesSchema, options, 'cache');
}

/** The dialect's rules, with the model's (`modelCacheRules`) and then the (validated) overrides on top. */
export function cacheRulesFor(
  dialect: Dialect | undefined,
  overrides: CacheRulesOptions = {},
  model?: string,
): CacheRules {
  const base: CacheRules = { ...CACHE_RULES[dialect ?? 'anthropic'], ...modelCacheRules(model) };
  return {
    read: overrides.read ?? base.read,
    write: overrides.write ?? base.write,
    ttlMs: overrides.ttlMs ?? base.ttlMs,
    minPrefix: overrides.minPrefix ?? base.minPrefix,
    granularity: overrides.granularity ?? base.granularity,
  };
}

/**
 * Where `default` brings the context after a compaction, as shares of usable input. A compaction
 * cycle runs from the fill F up to the trigger C while each send adds g tokens; per send it costs
 * `read × (C + F) / 2` in cache reads plus `(write × F + K) × g / (C − F)` for the compaction's own
 * rewrite (and K, the summarizer's call). Both terms rise with F at any prices, so the cheapest fill
 * is the lowest one allowed; below `min` the summary and the newest steps no longer hold what the agent
 * needs (docs/cache.md).
 */
export const FILL_BOUNDS = { min: 0.3, max: 0.7 } as const;

/** The tokens of an unchanged prefix the provider serves from its cache (minimum and steps applied). */
export function cachedTokens(prefix: number, rules: CacheRules): number {
  if (prefix < rules.minPrefix || prefix <= 0) return 0;
  return prefix - (prefix % rules.granularity);
}

/** A send's price in uncached-input-token units: cached tokens at `read`, the rest at `write`. */
export function sendCost(tokens: number, cached: number, rules: CacheRules): number {
  const hit = Math.min(cached, tokens);
  return hit * rules.read + (tokens - hit) * rules.write;
}

export interface RewriteCase {
  /** Tokens the rewrite sheds. */
  saved: number;
  /** Cached tokens it sends again uncached: the sent suffix from the rewrite on. */
  rebilled: number;
  /** The context now, and the level at which the next compaction is due. */
  tokens: number;
  trigger: number;
  /** The context right after a compaction. */
  fill: number;
  /** Tokens a send adds (0: unknown). */
  growth: number;
  /** Sends so far: as many more are expected (a session is as likely to end as to go on that long again). */
  sends: number;
}

export interface RewriteQuote {
  /** What the rewrite costs now: the re-sent suffix at `write` instead of `read`. */
  cost: number;
  /** What it is expected to save in cache reads (negative: it costs more than it saves). */
  saving: number;
  pays: boolean;
}

/**
 * Whether rewriting already-sent content pays for itself. Its cost is now: the re-billed suffix at
 * the write price instead of the read price. Its saving depends on what comes first:
 * - the session is expected to end before the next compaction (no more sends to come than it takes
 *   to reach the trigger): every remaining send reads `saved` tokens fewer;
 * - the compaction comes first: the context is smaller until then, but reaches the trigger
 *   `saved / growth` sends later, and those sends read a full context instead of a compacted one.
 *   Over the cycle that nets `read × saved × (fill + saved − tokens) / growth` — a loss whenever the
 *   context is already above the fill, which is why `default` keeps such reductions for the
 *   compaction itself.
 * Compactions put off by the saving further on are not counted: the rule errs on the side of
 * leaving the cache alone.
 */
export function quoteRewrite(c: RewriteCase, rules: CacheRules): RewriteQuote {
  const cost = c.rebilled * (rules.write - rules.read);
  if (c.growth <= 0 || c.saved <= 0) return { cost, saving: 0, pays: false };
  const toCompaction = Math.max(0, (c.trigger - c.tokens) / c.growth);
  const saving =
    c.sends <= toCompaction
      ? rules.read * c.saved * c.sends
      : (rules.read * c.saved * (c.fill + c.saved - c.tokens)) / c.growth;
  return { cost, saving, pays: saving > cost };
}
