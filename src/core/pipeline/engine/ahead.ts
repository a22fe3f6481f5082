/**
 * Compaction prepared ahead of need (`pipeline.ahead`, `ahead: 'auto'`). Between two steps — while the
 * model generates — a conversation past the warning level has the compaction of what it will fold
 * (summary and memory extraction, LLM summarizer included) computed in the background, on the exact
 * input the compaction stage would see: the pre-flight's earlier stages are run on the working context
 * (their result is not kept) and the compaction stage's input is captured. The result waits in the
 * pipeline's slot with a fingerprint of that input (`stages/compaction-ahead.ts`); the step that
 * reaches the compaction level applies it when the input still starts with it.
 *
 * One preparation runs at a time: a request for another input while one runs is queued (the newest
 * wins), so a session never has two summaries being written for it.
 */
import type { Message } from '../../messages/types.ts';
import {
  type AheadCover,
  type AheadSlot,
  aheadCover,
  align,
  onInput,
  staleness,
} from '../stages/compaction-ahead.ts';
import { contextTokens } from '../stages/compaction-support.ts';
import type { Stage, StageContext } from '../types.ts';
import type { Flow, GuardOptions, PresetStages } from './flows.ts';
import type { Recorder } from './runner.ts';

export type AheadStatus = 'prepared' | 'ready' | 'skipped' | 'failed';

/** What `pipeline.ahead` did. */
export interface AheadReport {
  /**
   * `prepared`: a compaction was computed and kept; `ready`: the one kept still covers this input;
   * `skipped`: nothing to prepare (below warning, nothing to fold, a preset without it); `failed`: the
   * compaction failed (the step at the compaction level compacts inline and counts the failure).
   */
  status: AheadStatus;
  detail: string;
  /** Digest of the input the kept compaction covers. */
  fingerprint?: string;
  /** How many messages of the stage input it covers. */
  covers?: number;
}

/** The compaction stage's input and context on this pre-flight, or why there is none. */
export async function captureCompactionInput(
  r: Recorder,
  flow: Flow,
  stages: PresetStages,
  guards: GuardOptions,
  promised = false,
): Promise<{ messages: readonly Message[]; ctx: StageContext } | string> {
  const { compaction, emergencyTrim: _trim, masking: _mask, ...rest } = stages;
  if (!compaction?.prepare) return 'this preset prepares no compaction ahead';
  let captured: readonly Message[] | undefined;
  const capture: Stage = {
    name: compaction.name,
    run(messages) {
      captured = messages;
      return {
        messages: messages as Message[],
        report: { stage: compaction.name, status: 'noop', tokensBefore: 0, tokensAfter: 0 },
        journal: [],
        events: [],
      };
    },
    ahead(messages) {
      captured = messages;
    },
  };
  // The step that compacts applies the reductions deferred for the prompt cache first: so does the
  // preparation, or its input would not be the one the compaction sees.
  r.cache.release ??= 'compaction';
  await flow(r, { ...rest, compaction: capture }, guards);
  // A step can jump over the warning band (a large tool output): below it, a conversation as far
  // from warning as warning is from the end of the usable window is prepared too, and so is one whose
  // last step found the compaction due and deferred it (`promised`: its reductions may have brought
  // what it left below that line, but the next step compacts). Without the warning stages: the step
  // that finds the compaction due skips them (it folds what they would shed), and a result they
  // archived would not line up with its input (archiving since is tolerated, not undone).
  const b = r.context.budget;
  if (captured === undefined && (promised || r.measure.tokens >= b.warning - (b.usable - b.warning)))
    captured = r.messages;
  if (captured === undefined) return `${r.measure.tokens} tokens: too far below warning, nothing to prepare`;
  return { messages: captured, ctx: { ...r.context, state: r.state } };
}

export interface AheadRunner {
  /** Prepares the compaction of `messages` (the stage input) unless a kept or running one covers it. */
  prepare(messages: readonly Message[], ctx: StageContext): Promise<AheadReport>;
}

export function createAheadRunner(slot: AheadSlot, stage: Stage): AheadRunner {
  let running: Promise<AheadReport> | undefined;
  let queued:
    | { messages: readonly Message[]; ctx: StageContext; done: (r: Promise<AheadReport>) => void }
    | undefined;

  /**
   * The kept result still applies to `messages`: its prefix unchanged and, with what came since, under
   * the guard's line. When preparations cost nothing but idle time (no `aheadLimit`: the offline
   * summarizer), with room for as much again: past that it is prepared anew, so that the step that
   * reaches the level does not find it too old after one more such stretch and compact inline. A paid
   * summarizer is asked again only when the kept one no longer applies.
   */
  const stillApplies = (messages: readonly Message[], ctx: StageContext): boolean => {
    const ready = slot.ready;
    if (ready === undefined) return false;
    const a = align(ready, messages, ctx);
    if (typeof a === 'string') return false;
    const now = contextTokens(onInput(ready, messages, a), ctx);
    // Unlimited: `aheadLimit` is at most 1,000 when set.
    const again = slot.limit > 1000 ? now - contextTokens(ready.result.messages, ctx) : 0;
    return now + again <= ready.guardLine;
  };
  const covers = (c: AheadCover | undefined, messages: readonly Message[], ctx: StageContext) =>
    c !== undefined && c.covers.length === messages.length && staleness(c, messages, ctx) === undefined;

  async function compute(messages: readonly Message[], ctx: StageContext): Promise<AheadReport> {
    const cover = aheadCover(messages, ctx);
    const base = { fingerprint: cover.fingerprint, covers: messages.length };
    slot.pending = cover;
    try {
      const { result, guardLine } = await stage.prepare!(messages, ctx);
      if (result.report.status === 'applied') {
        slot.ready = { ...cover, result, guardLine };
        if (slot.failed && slot.failed.covers === messages) delete slot.failed;
        return { status: 'prepared', detail: result.report.detail ?? 'prepared', ...base };
      }
      const reason = result.report.error ?? result.report.detail ?? result.report.status;
      if (result.report.status === 'failed') {
        slot.failed = { ...cover, reason };
        return { status: 'failed', detail: reason, ...base };
      }
      return { status: 'skipped', detail: reason, ...base };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      slot.failed = { ...cover, reason };
      return { status: 'failed', detail: reason, ...base };
    } finally {
      if (slot.pending === cover) delete slot.pending;
    }
  }

  /** Starts a preparation unless `aheadLimit` of them were started since the last compaction. */
  function begin(messages: readonly Message[], ctx: StageContext): Promise<AheadReport> {
    if (slot.started < slot.limit) return start(messages, ctx);
    if (slot.dueGranted === true && slot.dueStarted !== true) {
      slot.dueStarted = true;
      return start(messages, ctx);
    }
    return Promise.resolve({
      status: 'skipped',
      detail: `${slot.started} preparation(s) since the last compaction, the limit (aheadLimit): the next compaction runs inline`,
      covers: messages.length,
    });
  }

  function start(messages: readonly Message[], ctx: StageContext): Promise<AheadReport> {
    slot.started++;
    const run = compute(messages, ctx).finally(() => {
      running = undefined;
      const next = queued;
      queued = undefined;
      if (next) next.done(begin(next.messages, next.ctx));
    });
    running = run;
    return run;
  }

  return {
    prepare(messages, ctx) {
      if (stillApplies(messages, ctx))
        return Promise.resolve({
          status: 'ready',
          detail: `the prepared compaction still applies (${Math.max(0, messages.length - slot.ready!.covers.length)} message(s) since)`,
          fingerprint: slot.ready!.fingerprint,
          covers: messages.length,
        });
      if (slot.failed && covers(slot.failed, messages, ctx))
        return Promise.resolve({ status: 'failed', detail: slot.failed.reason, covers: messages.length });
      if (running === undefined) return begin(messages, ctx);
      // The running one covers the start of this input: it will apply with what came since, or be redone.
      if (slot.pending && staleness(slot.pending, messages, ctx) === undefined) return running;
      // One at a time: the newest request waits for the running one; an older queued one is dropped.
      const superseded = queued;
      const promise = new Promise<AheadReport>((resolve) => {
        queued = { messages, ctx, done: (r) => void r.then(resolve) };
      });
      superseded?.done(
        Promise.resolve({
          status: 'skipped',
          detail: 'superseded by a newer input',
          covers: superseded.messages.length,
        }),
      );
      return promise;
    },
  };
}
