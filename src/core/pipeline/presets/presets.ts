/**
 * The five presets: `default`, ctxkit's own, and one per seed system (SEED-RULES §1–5), each defined
 * as data in `presets/<name>/preset.ts` — which counter, which budget, whether the estimate anchors
 * to provider usage, and which stages fill the flow's slots with which options. `config` overrides
 * are sections keyed by slot, passed to the stage factories (which validate them and name the field at
 * fault); unknown sections throw `CtxError` naming the key.
 */
import * as z from 'zod/mini';
import { type BudgetConfig, budgetConfigSchema, type ContextBudget } from '../../budget/budget.ts';
import { CtxError } from '../../errors.ts';
import { PARSE_IN_ENGLISH, zodToCtxError } from '../../messages/schema.ts';
import type { TokenCounter } from '../../ports.ts';
import type { CalibratedCounter } from '../../tokens/calibrated/calibrated-counter.ts';
import { isCalibratedPreset } from '../../tokens/calibrated/presets.ts';
import { CALIBRATED_UPPER } from '../../tokens/calibrated/weights.ts';
import type { AnchorMode } from '../engine/estimate.ts';
import { GUARD_DEFAULTS, type GuardOptions } from '../engine/flows.ts';
import { LIMITS } from '../limits.ts';
import { coCliPreset } from './co-cli/preset.ts';
import { cowagentPreset } from './cowagent/preset.ts';
import { defaultPreset } from './default/preset.ts';
import {
  type PresetConfig,
  type PresetDefinition,
  type PresetStageKit,
  stageSectionSchema,
} from './definition.ts';
import { kosmokratorPreset } from './kosmokrator/preset.ts';
import { tiancaiPreset } from './tiancai/preset.ts';

export type { PresetConfig } from './definition.ts';

export const PRESET_NAMES = ['default', 'cowagent', 'co-cli', 'kosmokrator', 'tiancai'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

const PRESETS: Record<PresetName, PresetDefinition> = {
  default: defaultPreset,
  cowagent: cowagentPreset,
  'co-cli': coCliPreset,
  kosmokrator: kosmokratorPreset,
  tiancai: tiancaiPreset,
};

/** The `config` object a preset accepts (sections are validated by their stages). */
export function presetConfigSchema(preset: PresetName) {
  const { options, sections } = PRESETS[preset];
  const shape: Record<string, z.ZodMiniType> = {
    anchor: z.optional(z.union([z.boolean(), z.enum(['sent', 'reported'])])),
    breakerThreshold: z.optional(z.int().check(z.positive(), z.lte(LIMITS.small))),
    ...options,
  };
  for (const key of sections) shape[key] = z.optional(stageSectionSchema);
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
    ? CALIBRATED_UPPER[c.preset]
    : 1;
}

/** The preset's own anchoring (`true`) or the one configured. */
function anchorMode(own: AnchorMode, configured: PresetConfig['anchor']): AnchorMode {
  if (configured === undefined) return own;
  if (configured === true) return own || 'sent';
  return configured;
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
  const preset = PRESETS[name];
  const own = preset.budget(c, b);
  const used = counter ?? own.counter;
  return {
    name,
    counter: used,
    budget: own.budget,
    anchor: anchorMode(preset.anchor, c.anchor),
    guards: { ...guards, countMargin: countMargin(used) },
    stages: preset.stages(own.sections ?? { ...c }, own.budget, guards),
  };
}
