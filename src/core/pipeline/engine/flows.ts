/**
 * The order of operations of each preset's pre-flight (DESIGN.md pipeline table, SEED-RULES §1–5),
 * written against stage slots so that each flow reads like the rule it reproduces. Gates (levels,
 * circuit breaker, loop guard) live here; the stages themselves stay pure transformations.
 */

import type { Stage } from '../types.ts';
import type { Measure } from './estimate.ts';
import { atLeast, type Recorder, runAtLevel } from './runner.ts';

/** The stages a preset runs, by slot. A missing slot is simply not part of the preset. */
export interface PresetStages {
  /** Reduction of what arrived since the last send, before it is first sent (`default`). */
  arrival?: Stage;
  applyPendingInjections?: Stage;
  historicalTruncation?: Stage;
  dedup?: Stage;
  pruning?: Stage;
  /** Aggressive pruning freeing at least `savings` tokens, used when the loop guard escalates. */
  masking?: (savings: number) => Stage;
  archiving?: Stage;
  cowagentTrim?: Stage;
  slidingWindow?: Stage;
  /** Level-triggered compaction. */
  compaction?: Stage;
  /** Oldest-turn trimming at the blocking level. */
  emergencyTrim?: Stage;
}

export interface GuardOptions {
  /** Consecutive compaction failures that open the circuit breaker (002 §4.8). @default 3 */
  breakerThreshold: number;
  /** Loop guard: a compaction leaving more than this share of its trigger escalates. @default 0.6 */
  loopGuardRatio: number;
  /**
   * The counter's p95 overcount factor (1 + its p95 relative error; 1 for an exact or conservative
   * counter): `default` compacts once the estimate times this reaches usable input, so that a count
   * that errs low still leaves the send within the window. @default 1
   */
  countMargin: number;
}

export const GUARD_DEFAULTS = {
  breakerThreshold: 3,
  loopGuardRatio: 0.6,
  countMargin: 1,
} as const satisfies GuardOptions;

export type Flow = (r: Recorder, s: PresetStages, guards: GuardOptions) => Promise<void>;

async function maybe(r: Recorder, stage: Stage | undefined): Promise<void> {
  if (stage) await r.run(stage);
}

function resetBreaker(r: Recorder): void {
  if (r.state.compactionFailures !== 0) r.setState({ ...r.state, compactionFailures: 0 });
}

function below(m: Measure, tokens: number): boolean {
  return m.tokens < tokens;
}

/** Marks the stages of a flow that did not run because an earlier step ended the pre-flight. */
function skipRest(r: Recorder, stages: Array<Stage | undefined>, detail: string): void {
  for (const s of stages) if (s) r.skip(s.name, detail);
}

/** 000: pending injections → historical truncation (§1.4) → turn trim + token trim (§1.6–1.7). */
export const cowagentFlow: Flow = async (r, s) => {
  await maybe(r, s.applyPendingInjections);
  await maybe(r, s.historicalTruncation);
  await maybe(r, s.cowagentTrim);
};

/** 001: tool-return truncation (§3.1) → sliding window (§3.2), both message-count driven. */
export const coCliFlow: Flow = async (r, s) => {
  await maybe(r, s.historicalTruncation);
  await maybe(r, s.slidingWindow);
};

/** Whether the run comes right after a tool batch: the newest message is a tool result. */
function afterToolBatch(r: Recorder): boolean {
  return r.messages.at(-1)?.role === 'tool';
}

/** The same stage with a prefix on its report's detail. */
function labelled(stage: Stage, label: string): Stage {
  return {
    name: stage.name,
    async run(messages, ctx) {
      const result = await stage.run(messages, ctx);
      const detail = result.report.detail ? `${label}: ${result.report.detail}` : label;
      return { ...result, report: { ...result.report, detail } };
    },
  };
}

/**
 * 002: after a tool batch the loop runs dedup, then pruning with no threshold check (§4.6, §6 #16);
 * then (every iteration) the pre-flight of §4.6, exactly. Dedup also runs on load (§4.2); it is
 * idempotent, so it runs once per pre-flight here.
 */
export const kosmokratorFlow: Flow = async (r, s, g) => {
  await maybe(r, s.dedup);
  if (s.pruning && afterToolBatch(r)) await r.run(labelled(s.pruning, 'after a tool batch (no threshold)'));
  const b = r.context.budget;
  if (below(r.measure, b.warning)) {
    resetBreaker(r);
    return skipRest(r, [s.pruning, s.compaction, s.emergencyTrim], 'below warning; breaker reset');
  }
  await maybe(r, s.pruning);
  if (below(r.measure, b.warning)) {
    resetBreaker(r);
    return skipRest(r, [s.compaction, s.emergencyTrim], 'below warning after pruning; breaker reset');
  }
  if (r.state.compactionFailures >= g.breakerThreshold) {
    r.event({ type: 'breaker-open', failures: r.state.compactionFailures });
    if (s.compaction)
      r.skip(s.compaction.name, `circuit breaker open (${r.state.compactionFailures} failures)`);
    if (s.emergencyTrim)
      if (r.measure.tokens >= b.blocking) await r.run(s.emergencyTrim);
      else r.skip(s.emergencyTrim.name, 'below blocking');
    return;
  }
  if (s.compaction && (r.measure.tokens >= b.autoCompact || r.measure.tokens >= b.blocking)) {
    const failuresBefore = r.state.compactionFailures;
    const report = await r.run(s.compaction);
    const failed = report.status === 'failed';
    // 002: any exception → failure + 1 and trimOldest immediately (every failure).
    if (failed && r.state.compactionFailures === failuresBefore)
      r.setState({ ...r.state, compactionFailures: failuresBefore + 1 });
    if (report.status === 'applied') resetBreaker(r);
    if (s.emergencyTrim)
      if (failed) await r.run(s.emergencyTrim);
      else r.skip(s.emergencyTrim.name, 'compaction did not fail');
    return;
  }
  if (s.compaction) r.skip(s.compaction.name, 'below auto-compact');
  if (s.emergencyTrim)
    if (r.measure.tokens >= b.blocking) await r.run(s.emergencyTrim);
    else r.skip(s.emergencyTrim.name, 'below blocking');
};

/** 003: archiving (count-triggered, cutoff 10) → ShouldCompact → compaction (§5.3–5.6). */
export const tiancaiFlow: Flow = async (r, s) => {
  await maybe(r, s.archiving);
  // The stage applies 003's ShouldCompact itself (anchored estimate ≥ effective limit).
  await maybe(r, s.compaction);
};

/**
 * ctxkit's default: arrival truncation of what was not sent yet → dedup → historical truncation →
 * pruning (≥ warn) → archiving (≥ warn) → compaction (≥ compact; circuit breaker; loop guard) →
 * emergency trim (block). The reductions of what the provider holds cached wait for a moment when
 * they are free (cache-gate.ts): when the level calls for a compaction, they ride on it — the
 * compaction then runs even if they brought the level down, since the cache restarts at its summary
 * anyway — and at the blocking level they apply whatever they cost.
 */
export const defaultFlow: Flow = async (r, s, g) => {
  await maybe(r, s.arrival);
  const due = compactionDue(r, s, g);
  if (atLeast(r.measure, 'block')) r.cache.release ??= 'block';
  else if (due) r.cache.release ??= 'compaction';
  await maybe(r, s.dedup);
  await maybe(r, s.historicalTruncation);
  if (r.measure.level === 'ok') resetBreaker(r);
  // Pruning and archiving put a compaction off; once one is due, it folds what they would shed.
  if (due) skipRest(r, [s.pruning, s.archiving], 'a compaction is due: it folds what this would shed');
  else {
    if (s.pruning) await runAtLevel(r, s.pruning, 'warn');
    if (s.archiving) await runAtLevel(r, s.archiving, 'warn');
  }
  const escalation = await guardedCompaction(r, s, due, g);
  if (escalation) {
    const target = Math.round(g.loopGuardRatio * r.context.budget.autoCompact);
    const masking = s.masking?.(Math.max(1, r.measure.tokens - target));
    r.event({
      type: 'escalated',
      stage: masking?.name ?? s.emergencyTrim?.name ?? 'none',
      reason: escalation,
    });
    if (masking) await runAtLevel(r, masking, 'compact');
    if (s.emergencyTrim) await runAtLevel(r, s.emergencyTrim, 'compact');
    if (r.measure.tokens <= g.loopGuardRatio * r.context.budget.autoCompact) clearLastCompaction(r);
  } else {
    if (s.emergencyTrim) await runAtLevel(r, s.emergencyTrim, 'block');
  }
};

/**
 * Compaction at ≥ compact (default preset). The stage keeps the circuit breaker and the loop guard
 * (SEED-RULES §4.8; DESIGN.md): when it reports `escalated` or `breaker-open`, or fails at the blocking
 * level, the flow masks and trims instead of summarising again. Returns that reason, or undefined.
 */
async function guardedCompaction(
  r: Recorder,
  s: PresetStages,
  due: boolean,
  g: GuardOptions,
): Promise<string | undefined> {
  if (!s.compaction) return undefined;
  if (!due && !atLeast(r.measure, 'compact')) {
    // Near warning a compaction is coming: the stage reads the messages that arrived since (their
    // references, the summarizer's sentences), so that the compaction itself reads only what it has
    // not seen. "Near" is the estimate's p95 upper bound, as for the compaction itself: with a
    // calibrated counter's margin the compaction is due before the estimate reaches warning.
    if (atLeast(r.measure, 'warn') || r.measure.tokens * g.countMargin >= r.context.budget.warning)
      s.compaction.ahead?.(r.messages, r.context);
    r.skip(s.compaction.name, `level ${r.measure.level} below compact`);
    return undefined;
  }
  const from = r.events.length;
  const report = await r.run(s.compaction);
  const events = r.events.slice(from);
  for (const e of events) if (e.type === 'escalated') return e.reason;
  if (events.some((e) => e.type === 'breaker-open')) return 'circuit breaker open';
  if (report.status === 'failed' && r.measure.level === 'block')
    return 'compaction failed at the blocking level';
  return undefined;
}

/**
 * Whether this pre-flight will compact: the level calls for it — or the estimate's p95 upper bound
 * reaches usable input — and the circuit breaker is closed.
 */
function compactionDue(r: Recorder, s: PresetStages, g: GuardOptions): boolean {
  const b = r.context.budget;
  const level = atLeast(r.measure, 'compact') || r.measure.tokens * g.countMargin >= b.autoCompact;
  return s.compaction !== undefined && level && r.state.compactionFailures < g.breakerThreshold;
}

function clearLastCompaction(r: Recorder): void {
  if (r.state.lastCompactionTokens === undefined) return;
  const { lastCompactionTokens: _, ...rest } = r.state;
  r.setState(rest);
}

export const FLOWS = {
  default: defaultFlow,
  cowagent: cowagentFlow,
  'co-cli': coCliFlow,
  kosmokrator: kosmokratorFlow,
  tiancai: tiancaiFlow,
} as const satisfies Record<string, Flow>;
