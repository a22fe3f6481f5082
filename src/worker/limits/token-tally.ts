/**
 * What the upstream reported, summed per tenant for `GET /v1/usage`: calls answered with a usage,
 * input tokens not read from the provider's cache, tokens read from it and written to it, output
 * tokens. Measured, not modelled: the numbers are the provider's own, from the calls' answers.
 *
 * Each proxied call is counted by its id, once: the Worker sends a call's usage again when the tenant
 * object's reply was lost (`tallyCall`), and the ids of the last `MAX_RECENT_CALLS` calls counted are
 * kept beside the sums, in the same value, so such a replay adds nothing.
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

/**
 * Call ids kept to count each call once. @default 64: the Worker sends a count again at once after a
 * lost reply, so the calls counted between are few; the ids ride in the tally's one value (~2.5 KB),
 * written on every call.
 */
export const MAX_RECENT_CALLS = 64;

/** The tally as the tenant object stores it: the sums and the ids of the calls last counted. */
export interface StoredTally {
  tokens: TokenTally;
  recent: string[];
}

/** The stored value, from what the object's storage holds (a bare `TokenTally` before call ids were kept). */
export function storedTally(raw: StoredTally | TokenTally | undefined): StoredTally {
  if (!raw) return { tokens: EMPTY_TALLY, recent: [] };
  if ('tokens' in raw) return raw;
  return { tokens: raw, recent: [] };
}

/** `t` with call `callId` counted; `undefined` when it was counted already (a replay). */
export function countCall(t: StoredTally, callId: string, u: Usage, now: number): StoredTally | undefined {
  if (t.recent.includes(callId)) return undefined;
  const recent = [...t.recent, callId];
  return { tokens: addUsage(t.tokens, u, now), recent: recent.slice(-MAX_RECENT_CALLS) };
}

/** Share of the input tokens served from the cache (0 when nothing was counted). */
export function cacheHitRate(t: TokenTally): number {
  const input = t.input + t.cacheRead + t.cacheWrite;
  return input > 0 ? t.cacheRead / input : 0;
}
