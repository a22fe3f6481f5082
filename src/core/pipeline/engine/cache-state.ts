/**
 * What a pipeline remembers of its last send for the provider's prompt cache (`PipelineState.cache`),
 * and what a run knows about the cache when it starts (`CacheContext`): how many leading messages of
 * its input the provider holds cached, and whether rewriting them costs nothing extra this time.
 *
 * A message of the input is cached when the previous send carried it unchanged: the input extends
 * the working context the previous run returned (its digest chain, `state.sent`), or, when the caller
 * passed something else (an edit, a rewind, a rebuilt history), its visible messages match the
 * previous send's digests from the start. Nothing is cached on the first send, after the TTL, or when
 * the system prompt or tools changed.
 */

import type { CacheRules } from '../../cache/cost-model.ts';
import { CtxError } from '../../errors.ts';
import { messageDigest } from '../../messages/digest.ts';
import type { Message, ToolDefinition } from '../../messages/types.ts';
import { chainDigest, overheadDigest, type SentRecord } from './sent.ts';

/** `PipelineState.cache`: the last send, as the provider's cache saw it. */
export interface CacheState {
  /** When the last send was prepared (the injected clock, milliseconds). */
  at: number;
  /** Short content digests of the last send's messages, in order. */
  send: string[];
  /** Digest of the system prompt and tool schemas of the last send. */
  overhead: string;
  /** Tokens a send adds to the previous one, smoothed over the sends that only appended. 0: unknown. */
  growth: number;
  /** Sends so far. */
  sends: number;
}

/**
 * Why rewriting cached messages costs nothing extra in this run: `cold` (the last send is older than
 * the TTL), `overhead` (the system prompt or tools changed: nothing is cached), `compaction` (one runs
 * in this pre-flight and rewrites everything after its summary anyway), `block` (the budget needs the
 * room whatever it costs).
 */
export type CacheRelease = 'cold' | 'overhead' | 'compaction' | 'block';

/** What a run's stages know about the cache (`StageContext.cache`). */
export interface CacheContext {
  rules: CacheRules;
  /** Leading messages of the stage's input that the previous send carried (cached, unless released). */
  frozen: number;
  /** Set when rewriting the cached messages costs nothing extra: deferred reductions apply now. */
  release?: CacheRelease;
  /** Tokens a send is expected to add (`CacheState.growth`; 0: unknown). */
  growth: number;
  /** Sends so far (`CacheState.sends`): as many more are expected, at most. */
  sends: number;
  /** Tokens at which the next compaction is due. */
  trigger: number;
  /** Tokens a compaction leaves (the default's fill of usable input). */
  fill: number;
  /** The run's current estimate (kept up to date by the recorder). */
  tokens: number;
  /**
   * The run's input and how many of its leading messages the previous send carried, as they were
   * before any stage of this run changed them (`frozen` moves down as stages rewrite).
   */
  carried?: { messages: readonly Message[]; count: number };
}

/** The digest kept per sent message: 48 bits of the content digest, enough to tell one position apart. */
export function shortDigest(m: Message): string {
  return messageDigest(m).slice(0, 12);
}

export function isCacheState(v: unknown): v is CacheState {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  return (
    typeof c.at === 'number' &&
    Number.isFinite(c.at) &&
    typeof c.overhead === 'string' &&
    typeof c.growth === 'number' &&
    c.growth >= 0 &&
    Number.isInteger(c.sends) &&
    (c.sends as number) >= 0 &&
    Array.isArray(c.send) &&
    c.send.every((d) => typeof d === 'string')
  );
}

/** How the cache stands when a run starts. */
export interface CacheStart {
  frozen: number;
  release?: CacheRelease;
  /** Why nothing is cached: no previous send. */
  first: boolean;
  /** The input extends the working context the previous run returned. */
  extended: boolean;
}

/**
 * Leading messages of `input` the provider holds cached, from the previous run's records. The
 * working context the previous run returned was sent (its visible messages): an input that extends
 * it is cached up to its end. Otherwise the input's visible messages are matched against the
 * previous send's digests.
 */
export function cacheStart(
  input: readonly Message[],
  cache: CacheState | undefined,
  sent: SentRecord | undefined,
  call: {
    now: number;
    rules: CacheRules;
    system?: string | undefined;
    tools?: readonly ToolDefinition[] | undefined;
  },
): CacheStart {
  const extended =
    sent !== undefined &&
    sent.workingCount <= input.length &&
    chainDigest(input, sent.workingCount) === sent.working;
  if (!cache) return { frozen: 0, first: true, extended };
  const start: CacheStart = {
    frozen: extended ? sent!.workingCount : matched(input, cache),
    first: false,
    extended,
  };
  // What was sent stays the boundary a change is reported against; the release says it costs nothing.
  if (call.now - cache.at > call.rules.ttlMs) start.release = 'cold';
  else if (overheadDigest(call.system, call.tools) !== cache.overhead) start.release = 'overhead';
  return start;
}

/** Leading messages of `input` whose visible ones match the previous send's digests from the start. */
function matched(input: readonly Message[], cache: CacheState): number {
  let j = 0;
  let i = 0;
  for (; i < input.length && j < cache.send.length; i++) {
    const m = input[i]!;
    if (m.meta?.agentVisible === false) continue;
    if (shortDigest(m) !== cache.send[j]) break;
    j++;
  }
  return i;
}

/** Throws `code` naming `model` unless `model` is absent or a name of at most 256 characters. */
export function checkModel(model: unknown, code: 'invalid_input' | 'invalid_config'): void {
  if (model !== undefined && (typeof model !== 'string' || model.length > 256))
    throw new CtxError(code, 'expected a model name of at most 256 characters', { path: 'model' });
}
