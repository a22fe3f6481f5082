import { describe, expect, it } from 'vitest';
import {
  conservativeCounter,
  createCalibratedCounter,
  createChars4Counter,
  createPipeline,
  user,
} from '../../src/core/index.ts';

describe('conservativeCounter', () => {
  it('uses the calibrated upper bound, never below the estimate', () => {
    const base = createCalibratedCounter({ preset: 'o200k' });
    const upper = conservativeCounter(base);
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(50);
    expect(upper.countText(text)).toBe(base.upperBound(text));
    expect(upper.countText(text)).toBeGreaterThan(base.countText(text));
  });

  it('scales counters without a bound by the margin', () => {
    const upper = conservativeCounter(createChars4Counter(), 1.5);
    expect(upper.countText('x'.repeat(40))).toBe(15);
  });
});

describe('createPipeline conservative option', () => {
  it('estimates more tokens when asked to be conservative', () => {
    const messages = [user('hello world, this is a reasonably long message. '.repeat(40))];
    const plain = createPipeline().estimate({ messages }).tokens;
    const safe = createPipeline({ conservative: true }).estimate({ messages }).tokens;
    expect(safe).toBeGreaterThan(plain);
  });
});
