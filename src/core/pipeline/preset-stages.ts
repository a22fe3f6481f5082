/**
 * Stage instances of each preset: which factory fills which slot, with which mode and options.
 * The `config` section of a slot is spread over the preset's own options (so `mode` can be changed
 * too); the factories validate the fields and name the one at fault.
 */
import * as z from 'zod/mini';
import type { ContextBudget } from '../budget/budget.ts';
import { FILL_BOUNDS } from '../cache/cost-model.ts';
import { CtxError } from '../errors.ts';
import type { Message } from '../messages/types.ts';
import { cacheGated } from './cache-gate.ts';
import type { GuardOptions, PresetStages } from './flows.ts';
import { historicalAffects, prefixStable } from './incremental.ts';
import { LIMITS } from './limits.ts';
import { applyPendingInjections } from './stages/apply-pending-injections.ts';
import {
  createToolArchiving,
  normalizeToolSummaryStrategy,
  type ToolArchivingOptions,
} from './stages/archiving.ts';
import { type CompactionOptions, compaction } from './stages/compaction.ts';
import { type CowagentTrimOptions, cowagentTrim } from './stages/cowagent-trim.ts';
import { createDedup, type DedupOptions } from './stages/dedup.ts';
import { createEmergencyTrim, type EmergencyTrimOptions } from './stages/emergency-trim.ts';
import {
  createHistoricalTruncation,
  HISTORICAL_TRUNCATION_DEFAULTS,
  type HistoricalTruncationOptions,
} from './stages/historical-truncation.ts';
import { type KosmokratorCompactionOptions, kosmokratorCompaction } from './stages/kosmokrator-compaction.ts';
import { manualCompact } from './stages/manual-compact.ts';
import {
  createOutputTruncation,
  type OutputTruncationOptions,
  type OutputTruncationStage,
} from './stages/output-truncation.ts';
import { createPruning, type PruningOptions } from './stages/pruning.ts';
import { type SlidingWindowOptions, slidingWindow } from './stages/sliding-window.ts';
import { type TiancaiCompactionOptions, tiancaiCompaction } from './stages/tiancai-compaction.ts';
import type { Stage, StageContext } from './types.ts';

/** Per-slot option overrides (`config.<slot>`). */
export interface StageSections {
  outputTruncation?: OutputTruncationOptions;
  historicalTruncation?: HistoricalTruncationOptions;
  dedup?: DedupOptions;
  pruning?: PruningOptions;
  archiving?: ToolArchivingOptions;
  cowagentTrim?: CowagentTrimOptions;
  slidingWindow?: SlidingWindowOptions;
  /** Options of the preset's compaction stage (`compaction`, `kosmokratorCompaction` or `tiancaiCompaction`). */
  compaction?: CompactionOptions | KosmokratorCompactionOptions | TiancaiCompactionOptions;
  emergencyTrim?: EmergencyTrimOptions;
}

export const stageSectionSchema = z.record(z.string(), z.unknown());

export interface PresetStageKit {
  preflight: PresetStages;
  /** Arrival truncation for `admitToolResult` (absent: results are admitted unchanged). */
  outputTruncation?: OutputTruncationStage;
  /** Manual compaction (`/compact`) with optional focus instructions. */
  manual(instructions?: string): Stage;
}

/**
 * A compaction stage run by hand: the breaker and the loop-guard mark do not apply, and focus
 * instructions reach the summarizer.
 */
function forced(stage: Stage, instructions: string | undefined): Stage {
  return {
    name: stage.name,
    run(messages, ctx) {
      const { lastCompactionTokens: _, ...state } = ctx.state;
      const summarizer: StageContext['summarizer'] =
        instructions === undefined
          ? ctx.summarizer
          : {
              name: ctx.summarizer.name,
              summarize: (req) => ctx.summarizer.summarize({ ...req, instructions }),
            };
      return stage.run(messages, { ...ctx, summarizer, state: { ...state, compactionFailures: 0 } });
    },
  };
}

function manualStage(instructions: string | undefined): Stage {
  return {
    name: 'manual-compact',
    run: (messages: readonly Message[], ctx: StageContext) =>
      manualCompact(messages, ctx, instructions !== undefined ? { instructions } : {}),
  };
}

/** No gate: the seed presets rewrite what their systems rewrite. */
const ungated = (stage: Stage) => stage;

/**
 * Historical truncation in `mode`, with the early exit of `incremental.ts`; `gate` wraps the stage
 * itself (inside the early exit, so that a deferred change is not looked at again until something new
 * matters or the cache is released).
 */
function historical(
  mode: 'cowagent' | 'co-cli',
  options: HistoricalTruncationOptions | undefined,
  gate: (stage: Stage) => Stage = ungated,
): Stage {
  const o = { mode, ...options };
  const d = HISTORICAL_TRUNCATION_DEFAULTS;
  const maxChars = o.maxChars ?? ((o.mode ?? mode) === 'co-cli' ? d.coCliMaxChars : d.cowagentMaxChars);
  const affects = historicalAffects(o.mode ?? mode, maxChars, o.protectLast ?? d.protectLast);
  return prefixStable(gate(createHistoricalTruncation(o)), affects);
}

function dedup(
  mode: 'default' | 'kosmokrator',
  options: DedupOptions | undefined,
  gate: (stage: Stage) => Stage = ungated,
): Stage {
  const stage = createDedup({ mode, ...options });
  return prefixStable(gate(stage), stage.watch());
}

/**
 * Loop-guard masking: pruning with nothing protected (the last 2 user turns still are), freeing at
 * least `savings` tokens — or, when the old outputs cannot free that much, as much as they can (the
 * target is halved until pruning finds enough; 002's pruning does nothing below its minimum).
 */
function masking(savings: number): Stage {
  return {
    name: 'pruning',
    async run(messages, ctx) {
      let result = await createPruning({ mode: 'default', protectTokens: 0, minSavings: savings }).run(
        messages,
        ctx,
      );
      for (let s = Math.floor(savings / 2); result.messages === messages && s >= 1; s = Math.floor(s / 2))
        result = await createPruning({ mode: 'default', protectTokens: 0, minSavings: s }).run(messages, ctx);
      return result;
    },
  };
}

/** The same stage reported under another name (e.g. pruning used as the loop guard's masking). */
function renamed(name: string, stage: Stage): Stage {
  return {
    name,
    async run(messages, ctx) {
      const result = await stage.run(messages, ctx);
      const journal = result.journal.map((e) => (e.stage === stage.name ? { ...e, stage: name } : e));
      return { ...result, report: { ...result.report, stage: name }, journal };
    },
  };
}

/**
 * tiancai's archiving (003 §5.3): cutoff 10 and 003's strategy names — any case, surrounding spaces,
 * empty or unknown → `llm`; an unknown name is named in every report of the stage.
 */
function tiancaiArchiving(options: ToolArchivingOptions | undefined): Stage {
  const raw: unknown = options?.strategy;
  if (raw !== undefined && typeof raw !== 'string')
    throw new CtxError('invalid_config', 'expected a strategy name (llm, heuristic or off)', {
      path: 'archiving.strategy',
    });
  const { strategy, warning } = normalizeToolSummaryStrategy(raw ?? 'llm');
  const stage = createToolArchiving({ cutoff: 10, ...options, strategy });
  if (warning === undefined) return stage;
  return {
    name: stage.name,
    async run(messages, ctx) {
      const result = await stage.run(messages, ctx);
      const detail = result.report.detail ? `${result.report.detail}; ${warning}` : warning;
      return { ...result, report: { ...result.report, detail } };
    },
  };
}

/**
 * `default`'s arrival limit: one tool output may take a twentieth of usable input (at about 4 bytes
 * per token), and never more than Codex's 10 KiB — 5.9 KB at 32K, 10 KiB from 64K up; Claude Code's
 * shell cuts at 30,000 characters. An output is written once and then read on every send until the
 * next compaction, and brings that compaction closer: with 23.5 KB at 128K (the earlier cap, the seed
 * rules' 51,200 bytes) `npm run bench:cache` measured 1.006–1.06× the cost of append-then-compact on
 * the long sessions that read whole files, 0.90–0.97× with 10 KiB. A smaller share would cost less in
 * small windows too but loses recall there (`ctxcheck bench compaction --held-out`: Claude Code
 * sub-agents 95.1 % at a twentieth, 81.9 % at 3 %). What is cut is spilled to the blob store with a
 * notice on how to read it back.
 */
export const ARRIVAL_SHARE = 0.05;
/** The largest single output `default` lets in at any window: Codex's cut. */
export const ARRIVAL_MAX_BYTES = 10_240;

export function arrivalBytes(budget: ContextBudget): number {
  return Math.min(ARRIVAL_MAX_BYTES, Math.round(budget.usable * ARRIVAL_SHARE * 4));
}

export function buildStages(
  preset: string,
  s: StageSections,
  budget: ContextBudget,
  guards: GuardOptions,
): PresetStageKit {
  const kosmo = (s.compaction ?? {}) as KosmokratorCompactionOptions;
  const tiancai = (s.compaction ?? {}) as TiancaiCompactionOptions;
  const def = (s.compaction ?? {}) as CompactionOptions;
  // The breaker's largest threshold: 1,000 failures in a row, never reached in practice.
  const never = LIMITS.small;
  switch (preset) {
    case 'cowagent':
      return {
        preflight: {
          applyPendingInjections: applyPendingInjections(),
          historicalTruncation: historical('cowagent', s.historicalTruncation),
          cowagentTrim: cowagentTrim(s.cowagentTrim),
        },
        outputTruncation: createOutputTruncation({ mode: 'cowagent', ...s.outputTruncation }),
        manual: manualStage,
      };
    case 'co-cli':
      return {
        preflight: {
          historicalTruncation: historical('co-cli', s.historicalTruncation),
          slidingWindow: slidingWindow(s.slidingWindow),
        },
        manual: manualStage,
      };
    case 'kosmokrator':
      return {
        preflight: {
          dedup: dedup('kosmokrator', s.dedup),
          pruning: createPruning({ mode: 'kosmokrator', ...s.pruning }),
          compaction: kosmokratorCompaction({ maxFailures: guards.breakerThreshold, ...kosmo }),
          // trimOldest once per call; the flow decides when (blocking, or right after a failed compaction).
          emergencyTrim: createEmergencyTrim({
            minTurns: 1,
            maxTurns: 1,
            trigger: 'target',
            target: 1,
            ...s.emergencyTrim,
          }),
        },
        outputTruncation: createOutputTruncation({ mode: 'kosmokrator', ...s.outputTruncation }),
        manual: (instructions) =>
          forced(kosmokratorCompaction({ ...kosmo, maxFailures: never }), instructions),
      };
    case 'tiancai':
      return {
        preflight: {
          archiving: tiancaiArchiving(s.archiving),
          compaction: tiancaiCompaction(tiancai),
        },
        outputTruncation: createOutputTruncation({ mode: 'tiancai', ...s.outputTruncation }),
        manual: (instructions) => forced(tiancaiCompaction({ ...tiancai, trigger: 'always' }), instructions),
      };
    default: {
      // Pruning thresholds follow the window: 002's 40K/20K assume a 200K model.
      const protectTokens = Math.min(40_000, Math.round(budget.usable * 0.2));
      const minSavings = Math.min(20_000, Math.round(budget.usable * 0.1));
      // What arrives is reduced before it is first sent; what was sent is rewritten only when that is
      // free or pays for itself (cache-gate.ts).
      return {
        preflight: {
          arrival: createOutputTruncation({
            mode: 'default',
            maxBytes: arrivalBytes(budget),
            ...s.outputTruncation,
            scope: 'unsent',
          }),
          dedup: dedup('default', s.dedup, cacheGated),
          historicalTruncation: historical('cowagent', s.historicalTruncation, cacheGated),
          pruning: cacheGated(createPruning({ mode: 'default', protectTokens, minSavings, ...s.pruning })),
          archiving: cacheGated(createToolArchiving({ strategy: 'heuristic', ...s.archiving })),
          compaction: compaction({
            loopGuardRatio: guards.loopGuardRatio,
            maxFailures: guards.breakerThreshold,
            instructionsShare: 0.01,
            fill: FILL_BOUNDS.min,
            ...def,
          }),
          emergencyTrim: createEmergencyTrim({
            trigger: 'target',
            target: 'auto-compact',
            ...s.emergencyTrim,
          }),
          masking: (savings) => renamed('masking', masking(savings)),
        },
        outputTruncation: createOutputTruncation({ mode: 'default', ...s.outputTruncation }),
        manual: manualStage,
      };
    }
  }
}
