/**
 * `run.cache`: how a send stands against the previous one in the provider's prompt cache. The send
 * is compared with the previous send message by message (content digests): the unchanged prefix is
 * what the provider can serve from its cache; where the send departs from it before the previous
 * send's end is a rewrite, attributed to the stage that made it (or to the caller's history, the
 * system prompt and tools, or the repair of the send), with the reason the stage gave.
 */
import { type CacheRules, cachedTokens, sendCost } from '../../cache/cost-model.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import type { TokenCounter } from '../../ports.ts';
import { toolsJson } from '../../tokens/context.ts';
import type { CacheRelease, CacheStart, CacheState } from './cache-state.ts';
import { shortDigest } from './cache-state.ts';
import { overheadDigest } from './sent.ts';

/** A change a stage made to messages the provider held cached. */
export interface CacheRewrite {
  stage: string;
  /** Position of the first changed message in the stage's input. */
  index: number;
  /** The changed message (before the change). */
  messageId: string;
  /** Why the stage was allowed to: a release (`compaction`, `cold`…), the cost model's quote, or the preset's rule. */
  reason: string;
}

export type CacheStatus = 'first' | 'append' | 'rewrite' | 'cold';

export interface CacheReport {
  /** `first`: nothing sent before; `append`: the send starts with the whole previous send;
   * `rewrite`: it departs from it before its end; `cold`: the previous send is older than the TTL. */
  status: CacheStatus;
  /** Tokens of the send (system prompt, tools and messages), by the pipeline's counter. */
  tokens: number;
  /** Tokens of the send that are an unchanged prefix of the previous send (system prompt and tools included). */
  prefix: number;
  /** Of `prefix`, what the provider serves from its cache (TTL, minimum prefix and steps applied). */
  cached: number;
  /** The send's price in uncached-input-token units: `cached × read + (tokens − cached) × write`. */
  cost: number;
  /** Where the send first departs from the previous send, who made the change and why. */
  rewrite?: { index: number; messageId: string; stage: string; reason: string };
  /** Reductions of cached messages the stages left for a compaction or a cold cache (tokens they would shed). */
  deferred: number;
  rules: CacheRules;
}

export interface CacheReportInput {
  previous: CacheState | undefined;
  start: CacheStart;
  send: readonly Message[];
  counter: TokenCounter;
  system?: string | undefined;
  tools?: readonly ToolDefinition[] | undefined;
  now: number;
  rules: CacheRules;
  rewrites: readonly CacheRewrite[];
  deferred: number;
}

const RELEASE_REASON: Record<CacheRelease, string> = {
  cold: 'the cache was cold (idle past its TTL)',
  overhead: 'the system prompt or tools changed',
  compaction: 'rides on the compaction of this pre-flight',
  block: 'the budget is at the blocking level',
};

export function releaseReason(release: CacheRelease): string {
  return RELEASE_REASON[release];
}

/** The report, and the state the next run compares with. */
export function cacheReport(input: CacheReportInput): { report: CacheReport; state: CacheState } {
  const { previous, send, counter, rules } = input;
  let overhead = input.system ? counter.countText(input.system) : 0;
  if (input.tools && input.tools.length > 0) overhead += counter.countText(toolsJson(input.tools));
  const digests = send.map(shortDigest);
  const sizes = send.map((m) => counter.countMessage(m));
  const tokens = overhead + sizes.reduce((a, b) => a + b, 0);
  const overheadId = overheadDigest(input.system, input.tools);
  let k = 0;
  let prefix = 0;
  if (previous && previous.overhead === overheadId) {
    while (k < digests.length && k < previous.send.length && digests[k] === previous.send[k]) k++;
    prefix = overhead + sizes.slice(0, k).reduce((a, b) => a + b, 0);
  }
  const cold = previous !== undefined && input.now - previous.at > rules.ttlMs;
  const cached = cold ? 0 : cachedTokens(prefix, rules);
  const departs = previous !== undefined && (previous.overhead !== overheadId || k < previous.send.length);
  const status: CacheStatus = !previous ? 'first' : cold ? 'cold' : departs ? 'rewrite' : 'append';
  const report: CacheReport = {
    status,
    tokens,
    prefix,
    cached,
    cost: sendCost(tokens, cached, rules),
    deferred: input.deferred,
    rules,
  };
  if (departs) report.rewrite = attribute(input, k, send[k]?.id ?? '', previous!.overhead !== overheadId);
  const sample = tokens - prefix;
  const growth =
    status === 'append'
      ? previous!.growth > 0
        ? 0.8 * previous!.growth + 0.2 * sample
        : sample
      : (previous?.growth ?? 0);
  return {
    report,
    state: {
      at: input.now,
      send: digests,
      overhead: overheadId,
      growth: Math.round(growth),
      sends: (previous?.sends ?? 0) + 1,
    },
  };
}

function attribute(
  input: CacheReportInput,
  index: number,
  messageId: string,
  overheadChanged: boolean,
): NonNullable<CacheReport['rewrite']> {
  if (overheadChanged) return { index: 0, messageId, stage: 'caller', reason: RELEASE_REASON.overhead };
  const first = input.rewrites.reduce<CacheRewrite | undefined>(
    (a, r) => (a === undefined || r.index < a.index ? r : a),
    undefined,
  );
  if (first) return { index, messageId: first.messageId, stage: first.stage, reason: first.reason };
  if (!input.start.extended)
    return {
      index,
      messageId,
      stage: 'caller',
      reason: 'the history passed is not the one sent before (edited, rewound or rebuilt)',
    };
  return { index, messageId, stage: 'repair', reason: 'the invariant repair of the send changed it' };
}
