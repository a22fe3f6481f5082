/**
 * Self-correction from the prompt tokens a provider reports: after each call, compare the
 * provider's count with our estimate of the same prompt and keep an exponentially weighted
 * ratio; `wrap(counter)` scales every later estimate by it.
 */
import { CtxError } from '../../errors.ts';
import type { TokenCounter } from '../../ports.ts';

export interface SessionCalibratorOptions {
  /** Weight of the newest observation in the running ratio (the first one is taken whole). @default 0.5 */
  alpha?: number;
  /** Lowest factor ever applied. @default 0.5 */
  min?: number;
  /** Highest factor ever applied. @default 2 */
  max?: number;
  /** Prompts shorter than this (estimated tokens) are ignored: fixed overheads dominate them. @default 50 */
  minTokens?: number;
}

export interface SessionCalibrator {
  /** Current scale factor (1 until the first observation). */
  readonly factor: number;
  /** Number of observations taken into account. */
  readonly observations: number;
  /**
   * Records one call: the unwrapped counter's estimate of the prompt and the provider's count of it.
   * Returns the new factor; invalid or tiny observations leave it unchanged.
   */
  observe(estimatedPromptTokens: number, reportedPromptTokens: number): number;
  /** A counter whose counts are the wrapped counter's times the current factor. */
  wrap<C extends TokenCounter>(counter: C): TokenCounter;
}

export function createSessionCalibrator(options: SessionCalibratorOptions = {}): SessionCalibrator {
  const alpha = options.alpha ?? 0.5;
  const min = options.min ?? 0.5;
  const max = options.max ?? 2;
  const minTokens = options.minTokens ?? 50;
  if (!(alpha > 0 && alpha <= 1))
    throw new CtxError('invalid_config', 'must be in (0, 1]', { path: 'alpha' });
  if (!(min > 0 && min <= 1 && max >= 1)) {
    throw new CtxError('invalid_config', 'need 0 < min ≤ 1 ≤ max', {
      path: min > 0 && min <= 1 ? 'max' : 'min',
    });
  }
  let factor = 1;
  let observations = 0;
  const scale = (n: number) => (n <= 0 ? 0 : Math.max(1, Math.round(n * factor)));
  return {
    get factor() {
      return factor;
    },
    get observations() {
      return observations;
    },
    observe(estimated, reported) {
      if (
        !(Number.isFinite(estimated) && Number.isFinite(reported)) ||
        estimated < minTokens ||
        reported <= 0
      ) {
        return factor;
      }
      const ratio = Math.min(max, Math.max(min, reported / estimated));
      factor = observations === 0 ? ratio : factor + alpha * (ratio - factor);
      observations++;
      return factor;
    },
    wrap(counter) {
      return {
        name: `${counter.name}+session`,
        countText: (text) => scale(counter.countText(text)),
        countMessage: (message) => scale(counter.countMessage(message)),
      };
    },
  };
}
