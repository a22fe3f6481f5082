import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { assistant, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createEstimator, rescalePrefix } from '../../../src/core/pipeline/engine/estimate.ts';
import { recordSent } from '../../../src/core/pipeline/engine/sent.ts';
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
    const e = createEstimator({ counter, budget, input, anchor: 'reported' });
    expect(e.measure(input)).toMatchObject({ tokens: 1010, anchored: true });
  });

  it('counts purely when anchoring is off', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input, anchor: false });
    expect(e.measure(input)).toMatchObject({ tokens: 120, anchored: false });
  });

  it('keeps what the provider counted beyond the counter as fixed overhead when a stage shrank the prefix', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input, anchor: 'reported' });
    // prefix was 110 counter tokens = 1000 provider tokens: 110 × 1.1 scale with the prefix, the other
    // 879 are overhead the caller did not pass (system prompt, tools); now 10 + 10 = 20 → 879 + 22.
    const shrunk = [user('x'.repeat(40), { id: 'u1' }), input[1]!, input[2]!];
    expect(e.measure(shrunk)).toMatchObject({ tokens: 879 + 22 + 10, anchored: true });
  });

  it('scales the prefix down when the counter over-counted what the provider saw', () => {
    const anchor = { total: 50, prefix: 100 };
    expect(rescalePrefix(anchor, 0, 100)).toBe(50);
    expect(rescalePrefix(anchor, 0, 20)).toBe(10);
    expect(rescalePrefix({ total: 1000, prefix: 110 }, 0, 110)).toBe(1000);
  });

  it('ignores a usage that answered no recorded send in sent mode', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input });
    expect(e.anchor).toBeUndefined();
    expect(e.measure(input)).toMatchObject({ tokens: 120, anchored: false });
  });

  it('anchors in sent mode when the usage answered the recorded working context', () => {
    const input = history();
    const sent = recordSent(input.slice(0, 1), input.slice(0, 1), undefined, undefined, 100);
    const e = createEstimator({ counter, budget, input, sent });
    expect(e.measure(input)).toMatchObject({ tokens: 1010, anchored: true });
    const edited = [user('x'.repeat(399), { id: 'u1' }), input[1]!, input[2]!];
    const other = recordSent(edited.slice(0, 1), edited.slice(0, 1), undefined, undefined, 100);
    expect(createEstimator({ counter, budget, input, sent: other }).anchor).toBeUndefined();
    const withSystem = recordSent(input.slice(0, 1), input.slice(0, 1), 'be brief', undefined, 100);
    expect(createEstimator({ counter, budget, input, sent: withSystem }).anchor).toBeUndefined();
  });

  it('counts instead when the usage is no plausible count of the send it answers (a replayed answer)', () => {
    const input = history();
    // The recorded answer counted 50 000 input tokens; the send it follows is 100 tokens.
    input[1]!.usage = { inputTokens: 50_000, outputTokens: 100 };
    const sent = recordSent(input.slice(0, 1), input.slice(0, 1), undefined, undefined, 100);
    expect(createEstimator({ counter, budget, input, sent }).anchor).toBeUndefined();
  });

  it('never goes below the count for a reported usage that measured a smaller context', () => {
    const input = history();
    input[1]!.usage = { inputTokens: 20, outputTokens: 5 };
    const e = createEstimator({ counter, budget, input, anchor: 'reported' });
    expect(e.measure(input)).toMatchObject({ tokens: 120, anchored: false });
  });

  it('falls back to the pure count when the anchor message is gone', () => {
    const input = history();
    const e = createEstimator({ counter, budget, input, anchor: 'reported' });
    expect(e.measure([input[2]!])).toMatchObject({ tokens: 10, anchored: false });
  });

  it('includes system and tool schemas in the pure count', () => {
    const input = [user('abcd')];
    const e = createEstimator({ counter, budget, input, system: 'x'.repeat(8), tools: [{ name: 'a' }] });
    expect(e.measure(input).tokens).toBe(1 + 2 + Math.ceil(JSON.stringify([{ name: 'a' }]).length / 4));
  });
});
