import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { assistant, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createEstimator } from '../../../src/core/pipeline/estimate.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';

const counter = createChars4Counter();
const budget = createBudget({ contextWindow: 10_000, reserveOutput: 0 });

function history(): Message[] {
  const a = assistant('y'.repeat(40), [], { id: 'a1' }); // 10 tokens by chars/4
  a.usage = { inputTokens: 900, outputTokens: 100 };
  return [user('x'.repeat(400), { id: 'u1' }), a, user('z'.repeat(40), { id: 'u2' })];
}

describe('createEstimator', () => {
  it('anchors to the provider total plus later messages when the prefix is unchanged', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input });
    expect(e.measure(input)).toMatchObject({ tokens: 1010, anchored: true });
  });

  it('counts purely when anchoring is off', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input, anchor: false });
    expect(e.measure(input)).toMatchObject({ tokens: 120, anchored: false });
  });

  it('rescales the provider count of the prefix when a stage shrank it', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input });
    // prefix was 110 counter tokens (= 1000 provider tokens); now 10 + 10 = 20 → 1000 × 20/110 ≈ 182.
    const shrunk = [user('x'.repeat(40), { id: 'u1' }), input[1]!, input[2]!];
    expect(e.measure(shrunk)).toMatchObject({ tokens: 182 + 10, anchored: true });
  });

  it('falls back to the pure count when the anchor message is gone', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input });
    expect(e.measure([input[2]!])).toMatchObject({ tokens: 10, anchored: false });
  });

  it('includes system and tool schemas in the pure count', () => {
    const input = [user('abcd')];
    const e = createEstimator({ counter, budget, input, system: 'x'.repeat(8), tools: [{ name: 'a' }] });
    expect(e.measure(input).tokens).toBe(1 + 2 + Math.ceil(JSON.stringify([{ name: 'a' }]).length / 4));
  });
});
