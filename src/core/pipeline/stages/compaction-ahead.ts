/**
 * Compaction prepared ahead of need: what the pre-flight does with a compaction computed between
 * steps (`pipeline.ahead`, see `../ahead.ts`).
 *
 * A prepared compaction is the compaction stage's result on the stage input of an earlier moment
 * (`covers`), kept with a fingerprint of that input: each message's id, content digest and metadata,
 * the system prompt and tool schemas, and the state the stage read (previous summary, failures, loop
 * guard mark). The step that reaches the compaction level applies it only when its own stage input
 * starts with exactly those messages and the fingerprint of everything else matches; the messages
 * added since are then carried verbatim after the prepared result. Anything else — an edit, a rewind,
 * a stage that rewrote an old message since, a new system prompt — makes it stale, and a stale one
 * never applies: the step compacts inline (or, below the blocking level, lets the next one be prepared
 * instead of waiting for a summary).
 */
import { hashText, messageDigest } from '../../messages/digest.ts';
import type { Message } from '../../messages/types.ts';
import type { PipelineEvent, PipelineState, Stage, StageContext, StageResult } from '../types.ts';
import { contextTokens, sumTokens } from './compaction-support.ts';

/** The stage input a prepared compaction covers, and the fingerprint it must still match. */
export interface AheadCover {
  /** The compaction stage's input when it was prepared. */
  covers: readonly Message[];
  /** One key per covered message (id, content digest, metadata). */
  keys: readonly string[];
  /** System prompt, tool schemas and the state the stage reads. */
  context: string;
  /** Digest of `keys` and `context`, for reports. */
  fingerprint: string;
}

export interface PreparedCompaction extends AheadCover {
  /** The compaction stage's result on `covers` (status `applied`). */
  result: StageResult;
  /** The loop guard's line: the result with what arrived since must stay at or under it. */
  guardLine: number;
}

/** What the pipeline holds between steps: the latest prepared compaction, or the one being computed. */
export interface AheadSlot {
  ready?: PreparedCompaction;
  pending?: AheadCover;
  /** A preparation that ended without a result (summarizer failed, nothing to fold) for this cover. */
  failed?: AheadCover & { reason: string };
  /** Compaction ahead is in use: compaction reports say which summary they used. */
  active: boolean;
  /** The scheduler prepares the next one itself (`ahead: 'auto'`): a step below blocking never waits. */
  auto: boolean;
}

/** A message's key: id, what the model reads, and the metadata stages act on (pins, kinds). */
export function messageKey(m: Message): string {
  return `${m.id}\u0000${messageDigest(m)}\u0000${m.meta === undefined ? '' : JSON.stringify(m.meta)}`;
}

/** The parts of the stage context and state a compaction's result depends on besides its input. */
export function contextKey(ctx: Pick<StageContext, 'system' | 'tools'>, state: PipelineState): string {
  return JSON.stringify([
    ctx.system ?? null,
    ctx.tools ?? null,
    state.lastSummary ?? null,
    state.compactionFailures,
    state.lastCompactionTokens ?? null,
  ]);
}

export function aheadCover(input: readonly Message[], ctx: StageContext): AheadCover {
  const keys = input.map(messageKey);
  const context = contextKey(ctx, ctx.state);
  return { covers: input, keys, context, fingerprint: hashText(`${keys.join('\n')}\n${context}`) };
}

/** Why `cover` does not cover the start of `input` under `ctx`, or undefined when it does. */
export function staleness(
  cover: AheadCover,
  input: readonly Message[],
  ctx: StageContext,
): string | undefined {
  const n = cover.covers.length;
  if (input.length < n) return `rewound (${input.length} messages < ${n} covered)`;
  for (let i = 0; i < n; i++) {
    const m = input[i]!;
    if (m !== cover.covers[i] && messageKey(m) !== cover.keys[i]) return `message ${i} (${m.id}) changed`;
  }
  if (contextKey(ctx, ctx.state) !== cover.context) return 'system prompt, tools or compaction state changed';
  return undefined;
}

function source(event: Omit<Extract<PipelineEvent, { type: 'compaction-source' }>, 'type'>): PipelineEvent {
  return { type: 'compaction-source', ...event };
}

/** The prepared result with the messages added since carried verbatim, or why it cannot apply. */
function applyPrepared(
  p: PreparedCompaction,
  input: readonly Message[],
  ctx: StageContext,
): StageResult | string {
  const stale = staleness(p, input, ctx);
  if (stale !== undefined) return `prepared summary stale: ${stale}`;
  const added = input.slice(p.covers.length);
  const out = added.length === 0 ? p.result.messages : [...p.result.messages, ...added];
  const after = contextTokens(out, ctx);
  if (after > p.guardLine)
    return `prepared summary too old: ${after} tokens with the ${added.length} messages since (> ${p.guardLine})`;
  const tokensAfter = sumTokens(out, ctx.counter);
  const detail = `ahead summary, ${added.length} message(s) added since carried verbatim: ${p.result.report.detail ?? ''}`;
  return {
    ...p.result,
    messages: out,
    report: { ...p.result.report, tokensBefore: sumTokens(input, ctx.counter), tokensAfter, detail },
    events: [
      ...p.result.events,
      source({
        stage: p.result.report.stage,
        source: 'ahead',
        staleMessages: added.length,
        fingerprint: p.fingerprint,
      }),
    ],
    state: { ...(p.result.state ?? ctx.state), lastCompactionTokens: after },
  };
}

function withEvent(result: StageResult, event: PipelineEvent, note: string): StageResult {
  const detail = result.report.detail ? `${result.report.detail}; ${note}` : note;
  return { ...result, report: { ...result.report, detail }, events: [...result.events, event] };
}

/**
 * The compaction stage reading `slot`: the prepared result when it still covers the input; else,
 * below the blocking level, no wait while one is being prepared (or, with the scheduler on, about to
 * be); else the stage itself, inline. When `slot.active` is false it is the stage, unchanged.
 */
export function aheadAware(stage: Stage, slot: AheadSlot): Stage {
  const wrapped: Stage = {
    name: stage.name,
    async run(input, ctx) {
      if (!slot.active) return stage.run(input, ctx);
      let reason = 'no prepared summary';
      if (slot.ready) {
        const applied = applyPrepared(slot.ready, input, ctx);
        if (typeof applied !== 'string') return applied;
        reason = applied;
      }
      const blocking = contextTokens(input, ctx, true) >= ctx.budget.blocking;
      const covering = (c: AheadCover | undefined) =>
        c !== undefined && staleness(c, input, ctx) === undefined;
      const failed = covering(slot.failed) ? slot.failed : undefined;
      if (!blocking && failed === undefined && (covering(slot.pending) || slot.auto)) {
        const why = covering(slot.pending)
          ? 'ahead summary being prepared'
          : `${reason}; one is prepared next`;
        const size = sumTokens(input, ctx.counter);
        return {
          messages: input as Message[],
          report: {
            stage: stage.name,
            status: 'skipped',
            tokensBefore: size,
            tokensAfter: size,
            detail: `${why}; below blocking, this step does not wait`,
          },
          journal: [],
          events: [source({ stage: stage.name, source: 'pending', reason: why })],
        };
      }
      if (failed) reason = `the prepared compaction failed (${failed.reason})`;
      const result = await stage.run(input, ctx);
      if (result.report.status !== 'applied') return result;
      return withEvent(
        result,
        source({ stage: stage.name, source: 'inline', reason }),
        `inline summary (${reason})`,
      );
    },
  };
  if (stage.ahead) wrapped.ahead = stage.ahead.bind(stage);
  if (stage.prepare) wrapped.prepare = stage.prepare.bind(stage);
  return wrapped;
}
