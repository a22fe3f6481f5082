import { describe, expect, it } from 'vitest';
import {
  callUsage,
  checkedUsage,
  MAX_REPORTED_TOKENS,
  sumUsage,
  toolUsageHeader,
} from '../../src/worker/proxy/round-usage.ts';

describe('checkedUsage', () => {
  it('keeps every valid count and the stop reason when the report is sound', () => {
    const u = {
      inputTokens: 10,
      outputTokens: 2,
      cacheReadTokens: 300,
      cacheWriteTokens: 40,
      stopReason: 'tool_use',
    };
    expect(checkedUsage(u)).toEqual(u);
  });

  it('drops the usage when its input or output is negative, fractional, absurd or not a number', () => {
    for (const bad of [-1, 1.5, MAX_REPORTED_TOKENS + 1, Number.NaN, Number.POSITIVE_INFINITY, '7'])
      expect(checkedUsage({ inputTokens: bad as number, outputTokens: 1 })).toBeUndefined();
    expect(checkedUsage({ inputTokens: 1, outputTokens: -3 })).toBeUndefined();
  });

  it('drops only an optional count that is not valid', () => {
    expect(
      checkedUsage({
        inputTokens: 1,
        outputTokens: 2,
        cacheReadTokens: -5,
        cacheWriteTokens: Number.NaN,
        totalTokens: 1e300,
      }),
    ).toEqual({ inputTokens: 1, outputTokens: 2 });
  });
});

describe('sumUsage', () => {
  it('adds the valid usages and skips the others when some rounds reported none or garbage', () => {
    const sum = sumUsage([
      { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3 },
      undefined,
      { inputTokens: -1, outputTokens: 2 },
      { inputTokens: 4, outputTokens: 5, cacheWriteTokens: 6 },
    ]);
    expect(sum).toEqual({ inputTokens: 5, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 6 });
  });

  it('is undefined when no usage is valid', () => {
    expect(sumUsage([undefined, { inputTokens: Number.NaN, outputTokens: 0 }])).toBeUndefined();
  });
});

describe('callUsage', () => {
  it('is the answer’s own checked usage when no round was made', () => {
    expect(callUsage([], { inputTokens: 3, outputTokens: 1, stopReason: 'stop' })).toEqual({
      inputTokens: 3,
      outputTokens: 1,
      stopReason: 'stop',
    });
  });

  it('sums the rounds and the answer when rounds were made', () => {
    expect(
      callUsage([{ usage: { inputTokens: 2, outputTokens: 1 } }, {}], { inputTokens: 3, outputTokens: 1 }),
    ).toEqual({
      inputTokens: 5,
      outputTokens: 2,
    });
  });
});

describe('toolUsageHeader', () => {
  it('names the rounds’ totals, 0 where nothing was reported', () => {
    expect(toolUsageHeader([{ usage: { inputTokens: 2, outputTokens: 1, cacheReadTokens: 9 } }, {}])).toBe(
      'input=2, output=1, cache_read=9, cache_write=0',
    );
    expect(toolUsageHeader([{}])).toBe('input=0, output=0, cache_read=0, cache_write=0');
  });
});
