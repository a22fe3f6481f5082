/**
 * The five presets: which counter, which budget, whether the estimate anchors to provider usage, and
 * which stages fill the flow's slots with which options (SEED-RULES §1–5, DESIGN.md pipeline table).
 * `config` overrides are sections keyed by slot, passed to the stage factories (which validate them
 * and name the field at fault); unknown sections throw `CtxError` naming the key.
 */
import * as z from 'zod/mini';
import {
  BUDGET_DEFAULTS,
  type BudgetConfig,
  budgetConfigSchema,
  type ContextBudget,
  createBudget,
  effectiveTokenLimit,
} from '../budget/budget.ts';
import { budgetOf } from '../budget/levels.ts';
import { CtxError, isCtxError } from '../errors.ts';
import { PARSE_IN_ENGLISH, zodToCtxError } from '../messages/schema.ts';
import type { TokenCounter } from '../ports.ts';
import { type CalibratedCounter, createCalibratedCounter } from '../tokens/calibrated/calibrated-counter.ts';
import { isCalibratedPreset } from '../tokens/calibrated/presets.ts';
import { CALIBRATED_WEIGHTS } from '../tokens/calibrated/weights.ts';
import {
  createChars4Counter,
  createCowagentCounter,
  createKosmokratorCounter,
} from '../tokens/estimators.ts';
import type { AnchorMode } from './estimate.ts';
import { GUARD_DEFAULTS, type GuardOptions } from './flows.ts';
import { LIMITS } from './limits.ts';
import { buildStages, type PresetStageKit, type StageSections, stageSectionSchema } from './preset-stages.ts';

export const PRESET_NAMES = ['default', 'cowagent', 'co-cli', 'kosmokrator', 'tiancai'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

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

/** Which config sections each preset accepts (its slots, plus the runner keys). */
const SECTIONS: Record<PresetName, ReadonlyArray<keyof StageSections>> = {
  default: [
    'outputTruncation',
    'dedup',
    'historicalTruncation',
    'pruning',
    'archiving',
    'compaction',
    'emergencyTrim',
  ],
  cowagent: ['outputTruncation', 'historicalTruncation', 'cowagentTrim'],
  'co-cli': ['historicalTruncation', 'slidingWindow'],
  kosmokrator: ['outputTruncation', 'dedup', 'pruning', 'compaction', 'emergencyTrim'],
  tiancai: ['outputTruncation', 'archiving', 'compaction'],
};

/** The `config` object a preset accepts (sections are validated by their stages). */
export function presetConfigSchema(preset: PresetName) {
  const shape: Record<string, z.ZodMiniType> = {
    anchor: z.optional(z.union([z.boolean(), z.enum(['sent', 'reported'])])),
    breakerThreshold: z.optional(z.int().check(z.positive(), z.lte(LIMITS.small))),
  };
  if (preset === 'default') shape.loopGuardRatio = z.optional(z.number().check(z.gt(0), z.lte(1)));
  if (preset === 'tiancai') shape.maxTokens = z.optional(z.int().check(z.gte(0), z.lte(LIMITS.tokens)));
  for (const key of SECTIONS[preset]) shape[key] = z.optional(stageSectionSchema);
  return z.strictObject(shape);
}

/** Validates options; failures are `invalid_config` errors naming the field. */
function parseConfig<T>(schema: z.ZodMiniType<T>, value: unknown, path: string): T {
  const result = z.safeParse(schema, value, PARSE_IN_ENGLISH);
  if (result.success) return result.data;
  const e = zodToCtxError(result.error, [path]);
  throw new CtxError('invalid_config', e.message.replace(/^[^:]*: /, ''), {
    path: e.path ?? path,
    cause: result.error,
  });
}

export interface ResolvedPreset {
  name: PresetName;
  counter: TokenCounter;
  budget: ContextBudget;
  anchor: AnchorMode;
  guards: GuardOptions;
  stages: PresetStageKit;
}

/** A calibrated counter's p95 overcount factor; 1 for any other counter (exact, or a bound already). */
export function countMargin(counter: TokenCounter): number {
  const c = counter as Partial<CalibratedCounter>;
  return typeof c.preset === 'string' && isCalibratedPreset(c.preset) && typeof c.upperBound === 'function'
    ? CALIBRATED_WEIGHTS[c.preset].upper
    : 1;
}

/** The preset's own anchoring (`true`) or the one configured. */
function anchorMode(name: PresetName, configured: PresetConfig['anchor']): AnchorMode {
  const own: AnchorMode = name === 'default' ? 'sent' : name === 'tiancai' ? 'reported' : false;
  if (configured === undefined) return own;
  if (configured === true) return own || 'sent';
  return configured;
}

/** Default preset: buffers scale with a window smaller than the 200K they were set for. */
function scaledBudget(budget: Partial<BudgetConfig>): Partial<BudgetConfig> {
  const window = budget.contextWindow;
  if (window === undefined || window >= BUDGET_DEFAULTS.contextWindow) return budget;
  const f = window / BUDGET_DEFAULTS.contextWindow;
  const scale = (k: Exclude<keyof BudgetConfig, 'contextWindow'>) =>
    budget[k] ?? Math.round(BUDGET_DEFAULTS[k] * f);
  return {
    contextWindow: window,
    reserveOutput: scale('reserveOutput'),
    warningBuffer: scale('warningBuffer'),
    autoCompactBuffer: scale('autoCompactBuffer'),
    blockingBuffer: scale('blockingBuffer'),
  };
}

/** `createBudget`, with a window too small for the preset's reserve reported under the preset's name. */
function presetBudget(name: PresetName, b: Partial<BudgetConfig>): ContextBudget {
  try {
    return createBudget(b);
  } catch (e) {
    if (!isCtxError(e, 'invalid_config')) throw e;
    throw new CtxError('invalid_config', `preset ${name}: ${e.message}`, { cause: e });
  }
}

/** A budget whose every level sits at `limit` (systems with one threshold). */
function singleLimit(limit: number, warning = 0): ContextBudget {
  // Not createBudget: 003's "no limit" (Number.MAX_SAFE_INTEGER) lies outside the caller's bounds.
  return budgetOf({
    contextWindow: limit,
    reserveOutput: 0,
    warningBuffer: warning,
    autoCompactBuffer: 0,
    blockingBuffer: 0,
  });
}

export function resolvePreset(
  name: PresetName,
  config: PresetConfig | undefined,
  budgetInput: Partial<BudgetConfig> | undefined,
  counter: TokenCounter | undefined,
): ResolvedPreset {
  parseConfig(z.enum(PRESET_NAMES), name, 'preset');
  const c = parseConfig(presetConfigSchema(name), config ?? {}, 'config') as PresetConfig;
  const b = parseConfig(budgetConfigSchema, budgetInput ?? {}, 'budget') as Partial<BudgetConfig>;
  const guards: GuardOptions = {
    breakerThreshold: c.breakerThreshold ?? GUARD_DEFAULTS.breakerThreshold,
    loopGuardRatio: c.loopGuardRatio ?? GUARD_DEFAULTS.loopGuardRatio,
    countMargin: GUARD_DEFAULTS.countMargin,
  };
  let budget: ContextBudget;
  let chosen: TokenCounter;
  const sections: StageSections = { ...c };
  switch (name) {
    case 'cowagent': {
      // 000 §1.7: max_context_tokens (50000), else window − 10 % when only a window is configured.
      const given = c.cowagentTrim?.maxContextTokens;
      const window = b.contextWindow;
      const max =
        typeof given === 'number' ? given : window !== undefined ? window - Math.floor(0.1 * window) : 50_000;
      sections.cowagentTrim = { ...c.cowagentTrim, maxContextTokens: max };
      budget = singleLimit(max);
      chosen = createCowagentCounter();
      break;
    }
    case 'tiancai': {
      // 003 §5.4: window − reserve when a window is given, else MaxTokens (8000).
      const limitConfig: Parameters<typeof effectiveTokenLimit>[0] = { maxTokens: c.maxTokens ?? 8000 };
      if (b.contextWindow !== undefined) limitConfig.contextWindow = b.contextWindow;
      if (b.reserveOutput !== undefined) limitConfig.reserveTokens = b.reserveOutput;
      const limit = effectiveTokenLimit(limitConfig) ?? Number.MAX_SAFE_INTEGER;
      const reserve = (b.reserveOutput ?? 16384) > 0 ? (b.reserveOutput ?? 16384) : 16384;
      const window = b.contextWindow ?? 0;
      // The budget's window/reserve are 003's, so the compaction stage derives the same limit from it.
      budget =
        window - reserve > 0
          ? createBudget({
              contextWindow: window,
              reserveOutput: reserve,
              warningBuffer: 0,
              autoCompactBuffer: 0,
              blockingBuffer: 0,
            })
          : singleLimit(limit);
      sections.compaction = {
        contextWindow: window - reserve > 0 ? window : 0,
        reserveTokens: reserve,
        maxTokens: c.maxTokens ?? 8000,
        ...c.compaction,
      };
      chosen = createChars4Counter();
      break;
    }
    case 'kosmokrator':
      budget = presetBudget(name, b);
      chosen = createKosmokratorCounter();
      break;
    case 'co-cli':
      budget = presetBudget(name, scaledBudget(b));
      chosen = createChars4Counter({ unit: 'chars' });
      break;
    default:
      budget = presetBudget(name, scaledBudget(b));
      chosen = createCalibratedCounter({ preset: 'o200k' });
  }
  const used = counter ?? chosen;
  return {
    name,
    counter: used,
    budget,
    anchor: anchorMode(name, c.anchor),
    guards: { ...guards, countMargin: countMargin(used) },
    stages: buildStages(name, sections, budget, guards),
  };
}
