import { describe, expect, it } from 'vitest';
import { createBudget, effectiveTokenLimit, keepRecentBudget, shouldCompact } from '../../src/core/index.ts';

describe('createBudget', () => {
  it('gives the worked numbers of a 200K window', () => {
    const b = createBudget();
    expect([b.usable, b.warning, b.autoCompact, b.blocking]).toEqual([184000, 160000, 172000, 181000]);
  });

  it('maps token counts to levels with >= thresholds', () => {
    const b = createBudget();
    expect([159999, 160000, 172000, 181000].map((t) => b.level(t))).toEqual([
      'ok',
      'warn',
      'compact',
      'block',
    ]);
  });

  it('computes percent left', () => {
    expect(createBudget().percentLeft(92000)).toBe(50);
    expect(createBudget().percentLeft(999999)).toBe(0);
  });

  it('rejects a bad field naming it', () => {
    expect(() => createBudget({ contextWindow: -5 })).toThrow(/budget\.contextWindow/);
  });
});

describe('effectiveTokenLimit', () => {
  it('uses window minus reserve, else max tokens', () => {
    expect(effectiveTokenLimit({ contextWindow: 128000 })).toBe(111616);
    expect(effectiveTokenLimit({})).toBe(8000);
    expect(effectiveTokenLimit({ contextWindow: 10000 })).toBe(8000);
    expect(effectiveTokenLimit({ maxTokens: 0 })).toBeUndefined();
  });
});

describe('keepRecentBudget', () => {
  it('clamps keep-recent tokens to half the limit', () => {
    expect(keepRecentBudget({ contextWindow: 128000 })).toEqual({ tokens: 20000 });
    expect(keepRecentBudget({})).toEqual({ tokens: 4000 });
    expect(keepRecentBudget({ keepRecentTokens: 0, keepRecent: 0 })).toEqual({ messages: 5 });
  });
});

describe('shouldCompact', () => {
  it('falls back to the message count without a token limit', () => {
    expect(shouldCompact({ maxTokens: 0 }, 0, 50)).toBe(true);
    expect(shouldCompact({ maxTokens: 0 }, 0, 49)).toBe(false);
    expect(shouldCompact({ autoCompact: false }, 1e9, 1e9)).toBe(false);
    expect(shouldCompact({ contextWindow: 128000 }, 111616, 1)).toBe(true);
  });
});
