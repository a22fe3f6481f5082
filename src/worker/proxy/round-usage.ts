/**
 * What the upstream reported for each upstream call of one proxied call: the tool loop's rounds
 * (tool-loop.ts), each paid for by the tenant, and the final answer. The service records their sum
 * (the call's record, `GET /v1/usage`, the context view's line), keeps each round's usage apart, and
 * tells the client the rounds' totals in `x-ctxkit-tool-usage` — the provider's own `usage` in the
 * body stays the final answer's, as the client's SDK expects.
 *
 * An upstream's report is checked before anything is stored: a count that is not a whole number from
 * 0 to `MAX_REPORTED_TOKENS` is ignored (a usage whose input or output count is such is dropped
 * whole), so nothing summed or stored is ever NaN, negative or absurd.
 */
import type { Usage } from '../../core/index.ts';

/** @default 100,000,000 tokens: no single upstream call reads or writes more (the largest windows hold ~2M). */
export const MAX_REPORTED_TOKENS = 100_000_000;

export const TOOL_USAGE_HEADER = 'x-ctxkit-tool-usage';

/** Rounds a call's record lists: `PROXY_TOOL_ROUNDS` at most 16, and the one that was cut. */
export const MAX_ROUND_RECORDS = 17;

/** One round the proxy answered: the usage its upstream call reported (absent: none reported, or not valid). */
export interface RoundUsage {
  usage?: Usage;
}

const isCount = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_REPORTED_TOKENS;

/** `u` with only its valid counts; undefined when its input or output count is not one. */
export function checkedUsage(u: Usage | undefined): Usage | undefined {
  if (!u || !isCount(u.inputTokens) || !isCount(u.outputTokens)) return undefined;
  const out: Usage = { inputTokens: u.inputTokens, outputTokens: u.outputTokens };
  if (isCount(u.cacheReadTokens)) out.cacheReadTokens = u.cacheReadTokens;
  if (isCount(u.cacheWriteTokens)) out.cacheWriteTokens = u.cacheWriteTokens;
  if (isCount(u.reasoningTokens)) out.reasoningTokens = u.reasoningTokens;
  if (isCount(u.totalTokens)) out.totalTokens = u.totalTokens;
  if (typeof u.stopReason === 'string') out.stopReason = u.stopReason.slice(0, 64);
  return out;
}

/** The sum of `usages` (each checked first); undefined when none holds a valid usage. */
export function sumUsage(usages: readonly (Usage | undefined)[]): Usage | undefined {
  let sum: Usage | undefined;
  for (const raw of usages) {
    const u = checkedUsage(raw);
    if (!u) continue;
    sum ??= { inputTokens: 0, outputTokens: 0 };
    sum.inputTokens += u.inputTokens;
    sum.outputTokens += u.outputTokens;
    if (u.cacheReadTokens !== undefined) sum.cacheReadTokens = (sum.cacheReadTokens ?? 0) + u.cacheReadTokens;
    if (u.cacheWriteTokens !== undefined)
      sum.cacheWriteTokens = (sum.cacheWriteTokens ?? 0) + u.cacheWriteTokens;
    if (u.reasoningTokens !== undefined) sum.reasoningTokens = (sum.reasoningTokens ?? 0) + u.reasoningTokens;
  }
  return sum;
}

/** The usage the service records for a call: its rounds' and its final answer's, summed. */
export function callUsage(rounds: readonly RoundUsage[], final: Usage | undefined): Usage | undefined {
  if (rounds.length === 0) return checkedUsage(final);
  return sumUsage([...rounds.map((r) => r.usage), final]);
}

/** `input=…, output=…, cache_read=…, cache_write=…`: the rounds' totals (0 where none reported). */
export function toolUsageHeader(rounds: readonly RoundUsage[]): string {
  const s = sumUsage(rounds.map((r) => r.usage));
  return `input=${s?.inputTokens ?? 0}, output=${s?.outputTokens ?? 0}, cache_read=${s?.cacheReadTokens ?? 0}, cache_write=${s?.cacheWriteTokens ?? 0}`;
}
