import { describe, expect, it } from 'vitest';
import {
  createBudget,
  createPipeline,
  effectiveTokenLimit,
  keepRecentBudget,
  shouldCompact,
  smallestWindow,
} from '../../src/core/index.ts';

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

  it('refuses a window that does not exceed the reserve, naming the smallest that works', () => {
    expect(() => createBudget({ contextWindow: 16000 })).toThrow(
      'budget.contextWindow: a 16000-token window leaves nothing to send after reserveOutput 16000; the smallest that works is 16001',
    );
    expect(smallestWindow({ reserveOutput: 16000 })).toBe(16001);
  });

  it('clamps buffers larger than the usable input to 1 when the window exceeds the reserve (KosmoKrator)', () => {
    // KosmoKrator's ContextBudgetTest: a buffer larger than what the window leaves gives a level of 1.
    const b = createBudget({ contextWindow: 18000 });
    expect([b.usable, b.warning, b.autoCompact, b.blocking]).toEqual([2000, 1, 1, 1]);
    expect(b.level(0)).toBe('ok');
    expect(b.level(1)).toBe('block');
    expect(createBudget({ contextWindow: 16001 }).usable).toBe(1);
    expect(createBudget({ contextWindow: 19001 }).blocking).toBe(1);
  });

  it("names the preset when the preset's reserve leaves nothing to send", () => {
    expect(() => createPipeline({ preset: 'kosmokrator', budget: { contextWindow: 16000 } })).toThrow(
      /^preset kosmokrator: budget\.contextWindow: .* smallest that works is 16001$/,
    );
  });

  it("accepts 003's configuration with no token limit at all (MaxTokens 0, no window)", () => {
    const p = createPipeline({
      preset: 'tiancai',
      config: { maxTokens: 0, compaction: { maxMessages: 10 } },
    });
    expect(p.budget.usable).toBe(Number.MAX_SAFE_INTEGER);
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
