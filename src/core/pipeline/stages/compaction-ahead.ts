/**
 * Compaction prepared ahead of need: what the pre-flight does with a compaction computed between
 * steps (`pipeline.ahead`, see `../ahead.ts`).
 *
 * A prepared compaction is the compaction stage's result on the stage input of an earlier moment
 * (`covers`), kept with a fingerprint of that input: each message's id, content digest and metadata,
 * the system prompt and tool schemas, and the state the stage read (previous summary, failures, loop
 * guard mark). The step that reaches the compaction level applies it only when its own stage input
 * starts with exactly those messages and the fingerprint of everything else matches; the messages
 * added since are then carried verbatim after the prepared result. ctxkit's own reductions of an old
 * tool result since (archiving, a pruning or dedup placeholder) keep it applicable, with the reduced
 * message where the result keeps it verbatim. Anything else — an edit, a rewind, a pin, a new system
 * prompt — makes it stale, and a stale one
 * never applies: the step compacts inline (or, below the blocking level, lets the next one be prepared
 * instead of waiting for a summary).
 */
import { hashText, messageDigest } from '../../messages/digest.ts';
import type { Message } from '../../messages/types.ts';
import type { PipelineEvent, PipelineState, Stage, StageContext, StageResult } from '../types.ts';
import { contextTokens, sumTokens } from './compaction-support.ts';
import { isClearedResult } from './dedup.ts';

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
  /** Preparations started since the last compaction applied (ahead or inline). */
  started: number;
  /** `aheadLimit`: at `started >= limit` none is started before a compaction is due. */
  limit: number;
  /**
   * Past the limit, the step that found the compaction due (below blocking) deferred it and granted one
   * more preparation; `begin` takes it once (`dueGranted` stays true until a compaction applies, so
   * that one does not repeat): then the next compaction runs inline.
   */
  dueGranted?: boolean;
  /** The granted preparation was started. */
  dueStarted?: boolean;
  /**
   * A step found the compaction due and deferred it (below blocking, "one is prepared next"): the next
   * `pipeline.ahead` prepares one whatever the level of what that step left. Cleared when it does.
   */
  promised?: boolean;
}

/** A message's key: id, what the model reads, and the metadata stages act on (pins, kinds). */
export function messageKey(m: Message): string {
  return `${m.id}\u0000${messageDigest(m)}\u0000${m.meta === undefined ? '' : JSON.stringify(m.meta)}`;
}

/**
 * Whether `m` is the covered message `was` as ctxkit's own reductions left it since: tool-result
 * archiving (the same message hidden from the agent: `agentVisible: false`, `kind:
 * 'tool_result_archived'`) and pruning or dedup (a result's output replaced by its "[Old …]" /
 * "[Superseded …]" placeholder). Each only removes what the model reads of an old result, so the
 * summary prepared from the fuller message still says what the model saw; they happen at nearly every
 * step past their cutoffs and would otherwise make every preparation stale before it could apply. Any
 * other change — an edit, a pin, a new id, a different result — does make it stale.
 */
function reducedSince(m: Message, was: Message, key: string): boolean {
  if (m.role !== 'tool' || was.role !== 'tool' || m.id !== was.id || m.parts.length !== was.parts.length)
    return false;
  if (messageKey(was) !== key) return false; // the covered object itself was changed in place
  if (!sameMeta(m.meta, was.meta) && !archivedMeta(m.meta, was.meta)) return false;
  return m.parts.every((p, i) => {
    const q = was.parts[i]!;
    if (p === q) return true;
    if (p.type !== 'tool-result' || q.type !== 'tool-result') return JSON.stringify(p) === JSON.stringify(q);
    const { output, ...rest } = p;
    const { output: before, ...restBefore } = q;
    if (JSON.stringify(rest) !== JSON.stringify(restBefore)) return false;
    // A placeholder first: it spares serialising the (large) output it replaced on every step.
    if (typeof output === 'string' && isClearedResult(output)) return true;
    return output === before || JSON.stringify(output) === JSON.stringify(before);
  });
}

function sameMeta(a: Message['meta'], b: Message['meta']): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Archiving spreads the old meta and sets `agentVisible: false` and `kind: 'tool_result_archived'`. */
function archivedMeta(now: Message['meta'], before: Message['meta']): boolean {
  if (now?.kind !== 'tool_result_archived' || now.agentVisible !== false) return false;
  if (before?.kind !== undefined && before.kind !== 'tool_result') return false;
  const { kind: _k, agentVisible: _v, ...rest } = now;
  const { kind: _kb, agentVisible: _vb, ...restBefore } = before ?? {};
  return JSON.stringify(rest) === JSON.stringify(restBefore);
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

/**
 * A digest message tool-result archiving inserted (`kind: 'tool_summary'`). Each pre-flight inserts its
 * own, with a fresh id and at the end of what it saw, for the results it archives then: the one a
 * preparation saw and the one the step that applies it sees differ in id and place, not in what they
 * say about results the prepared summary read in full. Alignment skips them on both sides.
 */
function isDigest(m: Message): boolean {
  return m.meta?.kind === 'tool_summary' && m.role === 'user';
}

/** Where the covered messages are in `input`: `at[i]` for covered message i (-1 for a skipped digest). */
export interface Alignment {
  at: Int32Array;
  /** Index in `input` after the last covered message that is not a digest: what follows arrived since. */
  end: number;
}

/** How `cover` lines up with the start of `input` under `ctx`, or why it does not (stale). */
export function align(cover: AheadCover, input: readonly Message[], ctx: StageContext): Alignment | string {
  const n = cover.covers.length;
  const at = new Int32Array(n).fill(-1);
  let j = 0;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const was = cover.covers[i]!;
    if (isDigest(was)) continue;
    while (j < input.length && input[j] !== was && isDigest(input[j]!)) j++;
    if (j >= input.length)
      return `rewound (${input.length} messages, covered message ${i} (${was.id}) missing)`;
    const m = input[j]!;
    if (m !== was) {
      const key = cover.keys[i]!;
      if (messageKey(m) !== key && !reducedSince(m, was, key)) return `message ${i} (${was.id}) changed`;
    }
    at[i] = j;
    end = ++j;
  }
  if (contextKey(ctx, ctx.state) !== cover.context) return 'system prompt, tools or compaction state changed';
  return { at, end };
}

/** Why `cover` does not cover the start of `input` under `ctx`, or undefined when it does. */
export function staleness(
  cover: AheadCover,
  input: readonly Message[],
  ctx: StageContext,
): string | undefined {
  const a = align(cover, input, ctx);
  return typeof a === 'string' ? a : undefined;
}

/**
 * The prepared result on today's input: its head (summary, pinned sections, what the stage wrote) and,
 * from the first covered message it keeps verbatim to the end, `input` as it is now — the kept messages
 * as ctxkit's later stages left them (archived, pruned, with their own digests) and what arrived since.
 */
export function onInput(p: PreparedCompaction, input: readonly Message[], a: Alignment): Message[] {
  const out = p.result.messages;
  // The longest tail of the result that is the covered input's own tail, object for object.
  let k = 0;
  const n = p.covers.length;
  while (k < out.length && k < n && out[out.length - 1 - k] === p.covers[n - 1 - k]) k++;
  let from = a.end;
  for (let i = n - k; i < n; i++)
    if (a.at[i]! >= 0) {
      from = a.at[i]!;
      break;
    }
  const head = k === 0 ? out : out.slice(0, out.length - k);
  return from >= input.length ? head.slice() : [...head, ...input.slice(from)];
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
  const a = align(p, input, ctx);
  if (typeof a === 'string') return `prepared summary stale: ${a}`;
  const added = input.slice(a.end);
  const out = onInput(p, input, a);
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
/** A compaction applied: the limit counts again from zero. */
function restart(slot: AheadSlot): void {
  slot.started = 0;
  slot.dueGranted = false;
  slot.dueStarted = false;
  slot.promised = false;
}

export function aheadAware(stage: Stage, slot: AheadSlot): Stage {
  const wrapped: Stage = {
    name: stage.name,
    async run(input, ctx) {
      if (!slot.active) return stage.run(input, ctx);
      let reason = 'no prepared summary';
      if (slot.ready) {
        const applied = applyPrepared(slot.ready, input, ctx);
        if (typeof applied !== 'string') {
          restart(slot);
          return applied;
        }
        reason = applied;
      }
      const blocking = contextTokens(input, ctx, true) >= ctx.budget.blocking;
      const covering = (c: AheadCover | undefined) =>
        c !== undefined && staleness(c, input, ctx) === undefined;
      const failed = covering(slot.failed) ? slot.failed : undefined;
      // The limit bounds preparations made before a compaction is due. Once it is due, one more is no
      // extra cost (inline would ask the summarizer for the same) and spares the step the wait.
      const due = slot.started >= slot.limit && slot.dueGranted !== true;
      const spent = slot.started >= slot.limit && !due;
      if (spent)
        reason = `${reason}; ${slot.limit} preparation(s) and the one at the level since the last compaction (aheadLimit)`;
      if (!blocking && failed === undefined && (covering(slot.pending) || (slot.auto && !spent))) {
        if (due && !covering(slot.pending)) slot.dueGranted = true;
        if (!covering(slot.pending)) slot.promised = true;
        const why = covering(slot.pending)
          ? 'ahead summary being prepared'
          : `${reason}; one is prepared next${due ? ' (the compaction is due: past aheadLimit)' : ''}`;
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
      restart(slot);
      return withEvent(
        result,
        source({ stage: stage.name, source: 'inline', reason }),
        `inline summary (${reason})`,
      );
    },
  };
  // Reading ahead is left to the preparations once they run between steps (`pipeline.ahead`).
  if (stage.ahead) wrapped.ahead = (messages, ctx) => slot.active || stage.ahead!(messages, ctx);
  if (stage.prepare) wrapped.prepare = stage.prepare.bind(stage);
  return wrapped;
}
