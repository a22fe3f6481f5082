/**
 * A token counter that estimates from character-class features times weights fitted per
 * tokenizer family: one pass over the text, no vocabulary, a few hundred bytes of weights.
 */
import { CtxError } from '../../errors.ts';
import { countedParts, opaqueText, outputText } from '../../messages/text.ts';
import type { Message } from '../../messages/types.ts';
import type { TokenCounter } from '../../ports.ts';
import { extractTokenFeatures, TOKEN_FEATURE_COUNT } from './features.ts';
import { type CalibratedPreset, isCalibratedPreset, type PresetWeights } from './presets.ts';
import { CALIBRATED_WEIGHTS } from './weights.ts';

export interface CalibratedCounterOptions {
  /** Tokenizer family to imitate. @default 'o200k' */
  preset?: CalibratedPreset;
  /** Tokens charged per image part. @default 1200 */
  imageTokens?: number;
  /** Tokens added per message; overrides the preset's fitted value. @default the preset's */
  messageOverhead?: number;
}

export interface CalibratedCounter extends TokenCounter {
  readonly preset: CalibratedPreset;
  /** A conservative count of `text`: the estimate times (1 + the preset's p95 error). */
  upperBound(text: string): number;
  /** A conservative count of a whole message. */
  upperBoundMessage(message: Message): number;
}

const scratch = new Float64Array(TOKEN_FEATURE_COUNT);

/** Unrounded estimate of `text` under `weights`. */
export function estimateCalibratedRaw(text: string, weights: readonly number[]): number {
  if (text === '') return 0;
  extractTokenFeatures(text, scratch);
  let sum = 0;
  for (let i = 0; i < TOKEN_FEATURE_COUNT; i++) sum += scratch[i]! * (weights[i] ?? 0);
  return sum;
}

function toCount(raw: number): number {
  return raw <= 0 ? 0 : Math.max(1, Math.round(raw));
}

function invalid(path: string, message: string): never {
  throw new CtxError('invalid_config', message, { path });
}

export function createCalibratedCounter(options: CalibratedCounterOptions = {}): CalibratedCounter {
  const preset = options.preset ?? 'o200k';
  if (!isCalibratedPreset(preset)) invalid('preset', `unknown preset '${preset}'`);
  return calibratedCounter(preset, CALIBRATED_WEIGHTS[preset], options);
}

/**
 * `createCalibratedCounter` for a preset whose weights the caller names itself: the `default` pipeline
 * preset takes `o200kWeights` so that its bundle holds those weights alone, not the table of all seven.
 */
export function calibratedCounter(
  preset: CalibratedPreset,
  p: PresetWeights,
  options: Omit<CalibratedCounterOptions, 'preset'>,
): CalibratedCounter {
  const imageTokens = options.imageTokens ?? 1200;
  if (!(imageTokens >= 0)) invalid('imageTokens', 'must be >= 0');
  const overhead = options.messageOverhead ?? p.message;
  if (!(overhead >= 0)) invalid('messageOverhead', 'must be >= 0');
  const w = p.w;

  const messageRaw = (message: Message): number => {
    if (message.meta?.agentVisible === false) return 0;
    let raw = overhead;
    for (const part of countedParts(message.parts)) {
      if (part.type === 'text' || part.type === 'reasoning') raw += estimateCalibratedRaw(part.text, w);
      else if (part.type === 'tool-call')
        raw += estimateCalibratedRaw(part.name, w) + estimateCalibratedRaw(JSON.stringify(part.args), w);
      else if (part.type === 'tool-result') raw += estimateCalibratedRaw(outputText(part.output), w);
      else if (part.type === 'opaque' || part.type === 'tool-approval')
        raw += estimateCalibratedRaw(opaqueText(part), w);
      else raw += imageTokens;
    }
    return raw;
  };

  return {
    name: `ctxkit-${preset}`,
    preset,
    countText: (text) => toCount(estimateCalibratedRaw(text, w)),
    countMessage: (message) => toCount(messageRaw(message)),
    upperBound: (text) => Math.ceil(estimateCalibratedRaw(text, w) * p.upper),
    upperBoundMessage: (message) => Math.ceil(messageRaw(message) * p.upper),
  };
}
