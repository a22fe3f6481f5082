/** Tokenizer families that the calibrated estimator has weights for. */
export const CALIBRATED_PRESETS = [
  'o200k',
  'cl100k',
  'claude',
  'gemini',
  'gemma3',
  'qwen3',
  'llama3',
] as const;

export type CalibratedPreset = (typeof CALIBRATED_PRESETS)[number];

/** Fitted weights of one preset (generated into `weights.ts` by `npm run calibrate`). */
export interface PresetWeights {
  /** Tokens per unit of each feature, in `TOKEN_FEATURE_NAMES` order. */
  readonly w: readonly number[];
  /** Tokens added per message (role markers, separators). */
  readonly message: number;
  /** Multiplier giving a conservative count: 1 + the cross-validated p95 relative error. */
  readonly upper: number;
}

export function isCalibratedPreset(value: string): value is CalibratedPreset {
  return (CALIBRATED_PRESETS as readonly string[]).includes(value);
}
