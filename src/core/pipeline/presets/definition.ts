/**
 * A preset as data: the config sections (stage slots) it takes, options of its own, how its estimate
 * anchors to provider usage, how a configured budget becomes its budget and counter, and which stage
 * fills each slot of its flow (`engine/flows.ts`). One definition per preset, in
 * `presets/<name>/preset.ts`; `presets.ts` resolves a name and a config with them.
 */
import * as z from 'zod/mini';
import type { BudgetConfig, ContextBudget } from '../../budget/budget.ts';
import type { TokenCounter } from '../../ports.ts';
import type { AnchorMode } from '../engine/estimate.ts';
import type { GuardOptions, PresetStages } from '../engine/flows.ts';
import type { ToolArchivingOptions } from '../stages/archiving.ts';
import type { CompactionOptions } from '../stages/compaction.ts';
import type { DedupOptions } from '../stages/dedup.ts';
import type { EmergencyTrimOptions } from '../stages/emergency-trim.ts';
import type { HistoricalTruncationOptions } from '../stages/historical-truncation.ts';
import type { OutputTruncationOptions, OutputTruncationStage } from '../stages/output-truncation.ts';
import type { PruningOptions } from '../stages/pruning.ts';
import type { Stage } from '../types.ts';
import type { SlidingWindowOptions } from './co-cli/sliding-window.ts';
import type { CowagentTrimOptions } from './cowagent/cowagent-trim.ts';
import type { KosmokratorCompactionOptions } from './kosmokrator/kosmokrator-compaction.ts';
import type { TiancaiCompactionOptions } from './tiancai/tiancai-compaction.ts';

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

export interface PresetConfig extends StageSections {
  /**
   * Anchor the estimate to the provider's reported usage: `sent` only to a usage that answered the
   * previous run's send, `reported` to the newest usage but never below the count, `true` the preset's
   * own mode, `false` count only. @default `sent` for `default`, `reported` for `tiancai` (003 §5.5), else false
   */
  anchor?: boolean | 'sent' | 'reported';
  /** Consecutive compaction failures that open the circuit breaker. @default 3 */
  breakerThreshold?: number;
  /** `default`: loop-guard line as a share of the auto-compact trigger. @default 0.6 */
  loopGuardRatio?: number;
  /** `tiancai`: limit used when no context window is given (003 MaxTokens). @default 8000 */
  maxTokens?: number;
}

/** What a preset makes of the configured budget: its budget, its counter, the sections its stages take. */
export interface PresetBudget {
  budget: ContextBudget;
  counter: TokenCounter;
  /** The config's sections as the stages take them, when the preset derives any. @default the config */
  sections?: StageSections;
}

export interface PresetDefinition {
  /** The config sections (stage slots) the preset accepts. */
  readonly sections: ReadonlyArray<keyof StageSections>;
  /** Config keys of its own beside `anchor`, `breakerThreshold` and the sections. */
  readonly options?: Readonly<Record<string, z.ZodMiniType>>;
  /** The estimate's anchoring when `config.anchor` is unset or `true` (false: count only). */
  readonly anchor: AnchorMode;
  /** Budget and counter from the (validated) config and budget. */
  budget(config: PresetConfig, budget: Partial<BudgetConfig>): PresetBudget;
  /** The stage that fills each slot of the preset's flow. */
  stages(sections: StageSections, budget: ContextBudget, guards: GuardOptions): PresetStageKit;
}
