/**
 * A manager's sends priced step by step: each send against the previous one of the same manager, the
 * unchanged prefix served from the provider's cache (minimum prefix and steps of each price table),
 * the rest written at the table's write price. A send that does not start with the whole previous
 * send, in a step where the manager did not compact, is a history rewrite. A compaction's own
 * summarizer call, when the send says what it was, is priced apart (`summaries`).
 */
import { cachedTokens, sendCost } from '../../core/index.ts';
import { dollars, type PriceTable } from './prices.ts';

/** One send: a key per message (same key, same content) and its exact tokens, after `overhead` tokens of system prompt. */
export interface PricedSend {
  keys: readonly string[];
  sizes: readonly number[];
  overhead: number;
  /** The manager compacted in this step (a rewrite is then its compaction, not a history rewrite). */
  compacted: boolean;
  /** The summarizer call its compaction made in this step. */
  summaryCall?: SummaryCall;
}

/**
 * One summarizer call. `cached` input tokens are the prefix of the manager's previous send (served
 * from the cache when `cacheable`); `fresh` are the rest, written at the write price when `cacheable`
 * (the call carries cache hints), else billed as plain input (a new prompt, no hints).
 */
export interface SummaryCall {
  cached: number;
  fresh: number;
  output: number;
  cacheable: boolean;
}

export interface Tally {
  steps: number;
  compactions: number;
  /** Sends that departed from the previous send without a compaction. */
  rewrites: number;
  /** Tokens sent, over all steps. */
  sent: number;
  /** Per table: tokens served from the cache, and the cost in dollars. */
  cached: Record<string, number>;
  cost: Record<string, number>;
  /** Summarizer calls priced, and their cost in dollars per table. */
  summaryCalls: number;
  summaries: Record<string, number>;
}

export interface Ledger {
  add(send: PricedSend): void;
  readonly tally: Tally;
}

export function createLedger(tables: readonly PriceTable[]): Ledger {
  const tally: Tally = {
    steps: 0,
    compactions: 0,
    rewrites: 0,
    sent: 0,
    cached: {},
    cost: {},
    summaryCalls: 0,
    summaries: {},
  };
  for (const t of tables) {
    tally.cached[t.id] = 0;
    tally.cost[t.id] = 0;
    tally.summaries[t.id] = 0;
  }
  let last: { keys: readonly string[]; total: number; overhead: number } | undefined;
  return {
    tally,
    add(send) {
      const total = send.overhead + send.sizes.reduce((a, b) => a + b, 0);
      let prefix = 0;
      if (last && last.overhead === send.overhead) {
        prefix = send.overhead;
        for (let i = 0; i < send.keys.length && i < last.keys.length && send.keys[i] === last.keys[i]; i++)
          prefix += send.sizes[i]!;
      }
      if (last && prefix < last.total && !send.compacted) tally.rewrites++;
      if (send.compacted) tally.compactions++;
      tally.steps++;
      tally.sent += total;
      for (const t of tables) {
        const cached = Math.min(cachedTokens(prefix, t.rules), total);
        tally.cached[t.id]! += cached;
        tally.cost[t.id]! += dollars(sendCost(total, cached, t.rules), t);
      }
      if (send.summaryCall) {
        tally.summaryCalls++;
        for (const t of tables) tally.summaries[t.id]! += summaryCallCost(send.summaryCall, t);
      }
      last = { keys: send.keys, total, overhead: send.overhead };
    },
  };
}

/** Dollars of one summarizer call with `table`'s prices. */
export function summaryCallCost(call: SummaryCall, table: PriceTable): number {
  const input = call.cacheable
    ? sendCost(call.cached + call.fresh, cachedTokens(call.cached, table.rules), table.rules)
    : call.cached + call.fresh;
  return dollars(input, table) + (call.output * table.outputPerMillion) / 1_000_000;
}
