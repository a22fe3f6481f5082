/**
 * The runner: feeds messages through stages one at a time, records one report per stage (with the
 * runner's own before/after estimate), collects journal, events, memories and state, and finally
 * builds what is sent (model view + repair per dialect). It throws only on bad input; a stage that
 * throws becomes a `failed` report and the run goes on with that stage's input.
 */

import { CACHE_RULES, type CacheRules, FILL_BOUNDS } from '../../cache/cost-model.ts';
import { isCtxError } from '../../errors.ts';
import { type Repair, repairMessages } from '../../invariants/repair.ts';
import type { Dialect, Message } from '../../messages/types.ts';
import { toModelView } from '../../messages/visibility.ts';
import type { ExtractedMemory, Summarizer } from '../../ports.ts';
import type {
  JournalEntry,
  MemoryFlush,
  PipelineEvent,
  PipelineState,
  Stage,
  StageContext,
  StageReport,
  StageResult,
} from '../types.ts';
import { firstChange } from './cache-gate.ts';
import { type CacheReport, type CacheRewrite, cacheReport, releaseReason } from './cache-report.ts';
import { type CacheContext, cacheStart } from './cache-state.ts';
import type { Estimator, Measure } from './estimate.ts';
import { repairsToJournal } from './journal.ts';
import type { Repairer } from './repair-memo.ts';

export interface PipelineRun {
  /** The working context after the stages: what the session keeps as its context. */
  messages: Message[];
  /** What to send: the model view of `messages`, repaired for the dialect. */
  send: Message[];
  /** One per stage, in order. */
  reports: StageReport[];
  journal: JournalEntry[];
  events: PipelineEvent[];
  /** Carry into the next run. */
  state: PipelineState;
  estimate: RunEstimate;
  memories: ExtractedMemory[];
  /** 000 memory flushes (daily text to append), from trimming and overflow recovery. */
  flushes: MemoryFlush[];
  repairs: Repair[];
  /** The send against the previous one in the provider's prompt cache (cache-report.ts). */
  cache: CacheReport;
}

export interface RunEstimate {
  before: number;
  after: number;
  level: Measure['level'];
  anchored: boolean;
}

/** What a run's observer sees after each stage (tests check invariants here). */
export interface StageObservation {
  stage: string;
  before: readonly Message[];
  after: readonly Message[];
  report: StageReport;
  journal: readonly JournalEntry[];
}

export type StageObserver = (observation: StageObservation) => void;

export interface RecorderInit {
  messages: readonly Message[];
  /** The context every stage receives, minus the state (the recorder carries it). */
  context: Omit<StageContext, 'state'>;
  state: PipelineState;
  estimator: Estimator;
  observe?: StageObserver | undefined;
  /** Repair used for the working context and what is sent. @default repairMessages */
  repair?: Repairer | undefined;
  /** The provider's cache rules. @default Anthropic's (cost-model.ts) */
  cacheRules?: CacheRules | undefined;
}

/** A run in progress. Preset flows drive it stage by stage. */
export interface Recorder {
  readonly messages: Message[];
  readonly state: PipelineState;
  /** The estimate of `messages` right now (re-measured after every stage that changed them). */
  readonly measure: Measure;
  readonly initial: Measure;
  readonly reports: readonly StageReport[];
  readonly events: readonly PipelineEvent[];
  readonly journal: readonly JournalEntry[];
  readonly context: Omit<StageContext, 'state'>;
  /**
   * The prompt cache: how many leading messages the provider holds, and the release a flow sets when
   * rewriting them is free in this run. Kept up to date as stages change messages.
   */
  readonly cache: CacheContext;
  /** Runs a stage on the current messages and records everything it returns. */
  run(stage: Stage): Promise<StageReport>;
  /** Records a stage that was not run, with the reason. */
  skip(stage: string, detail: string): StageReport;
  /** Replaces the state (e.g. a circuit-breaker reset decided by the flow). */
  setState(state: PipelineState): void;
  /** Adds an event decided by the flow (breaker open, escalation). */
  event(event: PipelineEvent): void;
  finish(dialect?: Dialect): PipelineRun;
}

/** The stage's summarizer, recording each answer a fallback gave because the primary failed. */
function noticeFallbacks(summarizer: Summarizer, out: string[]): Summarizer {
  const noticing: Summarizer = {
    name: summarizer.name,
    async summarize(request) {
      const result = await summarizer.summarize(request);
      if (result.fallback !== undefined) out.push(result.fallback);
      return result;
    },
  };
  // What the stages ask of the summarizer besides a summary passes through: whether it is local, how
  // it wants the conversation, and its reading ahead.
  const passed = noticing as { local?: boolean; prefix?: 'cached' };
  if (summarizer.local !== undefined) passed.local = summarizer.local;
  if (summarizer.prefix !== undefined) passed.prefix = summarizer.prefix;
  if (summarizer.ahead) noticing.ahead = (messages) => summarizer.ahead!(messages);
  return noticing;
}

export function createRecorder(init: RecorderInit): Recorder {
  let messages = init.messages as Message[];
  let state = init.state;
  const initial = init.estimator.measure(messages);
  let measure = initial;
  const reports: StageReport[] = [];
  const journal: JournalEntry[] = [];
  const events: PipelineEvent[] = [];
  const memories: ExtractedMemory[] = [];
  const flushes: MemoryFlush[] = [];
  const rules = init.cacheRules ?? CACHE_RULES.anthropic;
  const c = init.context;
  const start = cacheStart(messages, state.cache, state.sent, {
    now: c.clock.now(),
    rules,
    system: c.system,
    tools: c.tools,
  });
  const cache: CacheContext = {
    rules,
    frozen: start.frozen,
    growth: state.cache?.growth ?? 0,
    sends: state.cache?.sends ?? 0,
    trigger: c.budget.autoCompact,
    fill: Math.round(FILL_BOUNDS.min * c.budget.usable),
    tokens: initial.tokens,
    carried: { messages, count: start.frozen },
  };
  if (start.release) cache.release = start.release;
  const rewrites: CacheRewrite[] = [];
  let deferred = 0;

  const record = (report: StageReport) => {
    reports.push(report);
    return report;
  };
  /** A change before the cached boundary is a rewrite: recorded, and the boundary moves to it. */
  const noteRewrite = (name: string, prior: readonly Message[], result: StageResult) => {
    const first = firstChange(prior, result.messages);
    if (first >= cache.frozen) return;
    const reason =
      result.rewrite ??
      (cache.release
        ? releaseReason(cache.release)
        : `preset ${init.context.preset} applies it on every pre-flight`);
    rewrites.push({ stage: result.report.stage || name, index: first, messageId: prior[first]!.id, reason });
    cache.frozen = first;
  };

  return {
    get messages() {
      return messages;
    },
    get state() {
      return state;
    },
    get measure() {
      return measure;
    },
    initial,
    reports,
    events,
    journal,
    context: init.context,
    cache,
    async run(stage) {
      const before = measure;
      let result: StageResult;
      const fallbacks: string[] = [];
      try {
        const ctx: StageContext = {
          ...init.context,
          summarizer: noticeFallbacks(init.context.summarizer, fallbacks),
          state,
        };
        ctx.cache = { ...cache, tokens: measure.tokens };
        result = await stage.run(messages, ctx);
      } catch (error) {
        if (init.context.signal?.aborted) throw error;
        if (isCtxError(error, 'invalid_config') || isCtxError(error, 'invalid_input')) throw error;
        const message = error instanceof Error ? error.message : String(error);
        return record({
          stage: stage.name,
          status: 'failed',
          tokensBefore: before.tokens,
          tokensAfter: before.tokens,
          detail: 'stage threw; input kept',
          error: message,
        });
      }
      const prior = messages;
      if (result.messages !== messages) {
        const next = init.estimator.measure(result.messages);
        if (next.tokens > before.tokens && growthRefused(init.context.preset, stage.name))
          // A stage exists to shed tokens: one that would add some leaves the context as it was.
          return record({
            stage: result.report.stage || stage.name,
            status: 'noop',
            tokensBefore: before.tokens,
            tokensAfter: before.tokens,
            detail: `output (${next.tokens} tokens) larger than its input (${before.tokens}); input kept`,
          });
        noteRewrite(stage.name, prior, result);
        messages = result.messages;
        measure = next;
      }
      if (result.deferred) deferred += result.deferred;
      if (result.state) state = result.state;
      journal.push(...result.journal);
      events.push(...result.events);
      for (const reason of fallbacks) events.push({ type: 'summary-fallback', stage: stage.name, reason });
      if (result.memories) memories.push(...result.memories);
      if (result.flushes) flushes.push(...result.flushes);
      const report: StageReport = {
        ...result.report,
        stage: result.report.stage || stage.name,
        tokensBefore: before.tokens,
        tokensAfter: measure.tokens,
      };
      if (fallbacks.length > 0) {
        const note = `LLM summary failed, fallback used: ${fallbacks[0]}`;
        report.detail = report.detail ? `${report.detail}; ${note}` : note;
      }
      init.observe?.({
        stage: report.stage,
        before: prior,
        after: messages,
        report,
        journal: result.journal,
      });
      return record(report);
    },
    skip(stage, detail) {
      return record({
        stage,
        status: 'skipped',
        tokensBefore: measure.tokens,
        tokensAfter: measure.tokens,
        detail,
      });
    },
    setState(next) {
      state = next;
    },
    event(e) {
      events.push(e);
    },
    finish(dialect) {
      // Keep the working context valid for the next run (a trim can leave a final result without its
      // call): neutral repair, a trailing pending call left alone. Then what is sent: the model view,
      // repaired for the dialect.
      const repair = init.repair ?? repairMessages;
      const working = repair(messages, { allowPendingCalls: true });
      if (working.repairs.length > 0) {
        journal.push(...repairsToJournal(working.repairs));
        messages = working.messages;
        measure = init.estimator.measure(messages);
      }
      const view = toModelView(messages);
      const repaired = repair(view, dialect ? { dialect } : {});
      journal.push(...repairsToJournal(repaired.repairs));
      const priced = cacheReport({
        previous: init.state.cache,
        start,
        send: repaired.messages,
        counter: c.counter,
        system: c.system,
        tools: c.tools,
        now: c.clock.now(),
        rules,
        rewrites,
        deferred,
      });
      state = { ...state, cache: priced.state };
      return {
        messages,
        send: repaired.messages,
        reports,
        journal,
        events,
        state,
        estimate: {
          before: initial.tokens,
          after: measure.tokens,
          level: measure.level,
          anchored: measure.anchored,
        },
        memories,
        flushes,
        repairs: [...working.repairs, ...repaired.repairs],
        cache: priced.report,
      };
    },
  };
}

/**
 * ctxkit's own preset refuses a stage output larger than its input (a digest or marker longer than
 * what it replaces); the seed presets keep their upstream behaviour, and a summary the caller
 * scheduled (`apply-pending-injections`) adds by design.
 */
function growthRefused(preset: string, stage: string): boolean {
  return preset === 'default' && stage !== 'apply-pending-injections';
}

/** The usual gate of a level-triggered stage: run at or above `min`, else a `skipped` report. */
export const LEVEL_ORDER = { ok: 0, warn: 1, compact: 2, block: 3 } as const;

export function atLeast(measure: Measure, min: Measure['level']): boolean {
  return LEVEL_ORDER[measure.level] >= LEVEL_ORDER[min];
}

/** Runs `stage` when the level is at least `min`; otherwise records why it was skipped. */
export async function runAtLevel(r: Recorder, stage: Stage, min: Measure['level']): Promise<StageReport> {
  if (!atLeast(r.measure, min)) return r.skip(stage.name, `level ${r.measure.level} below ${min}`);
  return r.run(stage);
}
