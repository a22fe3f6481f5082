/**
 * The real bounds of numeric options: every number of a config section, the budget and the
 * service's request bodies has a finite minimum and maximum (`test/core/bounds-audit.test.ts` walks
 * the schemas). The maxima are far above any sensible value and only refuse nonsense.
 */
export const LIMITS = {
  /** Tokens: no model's context window is above 10 M. */
  tokens: 10_000_000,
  /** Characters, code points or bytes of one text: 100 M. */
  chars: 100_000_000,
  /** Lines of one text. */
  lines: 10_000_000,
  /** Messages or turns of one conversation. */
  count: 1_000_000,
  /** A time limit in milliseconds: one hour. */
  ms: 3_600_000,
  /** Failures before a breaker opens, results per batch, batches per run. */
  small: 1_000,
  /** A tool's pruning priority (the 002 table uses 0–100). */
  priority: 1_000_000,
  /** Characters per token of an estimate. */
  charsPerToken: 100,
} as const;
