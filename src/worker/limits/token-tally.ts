/**
 * What the upstream reported, summed per tenant for `GET /v1/usage`: calls answered with a usage,
 * input tokens not read from the provider's cache, tokens read from it and written to it, output
 * tokens. Measured, not modelled: the numbers are the provider's own, from the calls' answers.
 */
import type { Usage } from '../../core/index.ts';

export interface TokenTally {
  calls: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** Ms since epoch of the first call counted (0: none yet). */
  since: number;
}

export const EMPTY_TALLY: TokenTally = {
  calls: 0,
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  since: 0,
};

const count = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

export function addUsage(t: TokenTally, u: Usage, now: number): TokenTally {
  return {
    calls: t.calls + 1,
    input: t.input + count(u.inputTokens),
    cacheRead: t.cacheRead + count(u.cacheReadTokens),
    cacheWrite: t.cacheWrite + count(u.cacheWriteTokens),
    output: t.output + count(u.outputTokens),
    since: t.since || now,
  };
}

/** Share of the input tokens served from the cache (0 when nothing was counted). */
export function cacheHitRate(t: TokenTally): number {
  const input = t.input + t.cacheRead + t.cacheWrite;
  return input > 0 ? t.cacheRead / input : 0;
}
