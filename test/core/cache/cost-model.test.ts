import { describe, expect, it } from 'vitest';
import {
  CACHE_RULES,
  cachedTokens,
  cacheRulesFor,
  modelCacheRules,
  parseCacheRules,
  quoteRewrite,
  sendCost,
} from '../../../src/core/cache/cost-model.ts';
import { isCtxError } from '../../../src/core/errors.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('cacheRulesFor', () => {
  it('gives Anthropic’s write premium and OpenAI’s 128-token steps as each dialect’s defaults', () => {
    expect(cacheRulesFor('anthropic')).toMatchObject({
      read: 0.1,
      write: 1.25,
      minPrefix: 1024,
      granularity: 1,
    });
    expect(cacheRulesFor('openai')).toMatchObject({ read: 0.1, write: 1, granularity: 128 });
    expect(cacheRulesFor('responses')).toEqual(CACHE_RULES.openai);
  });

  it('takes Anthropic’s rules when no dialect is given (the strictest)', () => {
    expect(cacheRulesFor(undefined)).toEqual(CACHE_RULES.anthropic);
  });

  it('lays the overrides over the dialect’s defaults', () => {
    expect(cacheRulesFor('openai', { read: 0.5, ttlMs: 3_600_000 })).toMatchObject({
      read: 0.5,
      write: 1,
      ttlMs: 3_600_000,
    });
  });
});

describe('the rules of a model family', () => {
  it.each([
    ['gpt-5.6', { write: 1.25, granularity: 1, ttlMs: 1_800_000 }],
    ['openai/gpt-5.6-sol', { write: 1.25, granularity: 1 }],
    ['gpt-5.10-mini', { write: 1.25 }],
    ['gpt-6', { write: 1.25 }],
    ['gpt-4o-mini-2024-07-18', { read: 0.5 }],
    ['o3-mini', { read: 0.5 }],
    ['o3', { read: 0.25 }],
    ['gpt-4.1-nano', { read: 0.25 }],
    ['claude-haiku-4-5-20251001', { minPrefix: 4096 }],
    ['us.anthropic.claude-opus-4-5-20251101-v1:0', { minPrefix: 4096 }],
    ['anthropic/claude-opus-4.6', { minPrefix: 4096 }],
    ['claude-sonnet-4-6', { minPrefix: 2048 }],
    ['claude-3-5-haiku-latest', { minPrefix: 2048 }],
    ['gemini-2.5-pro', { read: 0.25, minPrefix: 4096 }],
    ['gemini-2.5-flash', { read: 0.25 }],
  ])('%s departs from its dialect by %j', (model, rules) => {
    expect(modelCacheRules(model)).toMatchObject(rules);
  });

  it.each([
    'gpt-5',
    'gpt-5.5',
    'gpt-5.4-mini',
    'claude-sonnet-4-5',
    'claude-opus-4-1',
    'gemini-3-pro',
    'my-o3-finetune',
    'fo1',
  ])('%s keeps its dialect’s rules', (model) => {
    expect(modelCacheRules(model)).toEqual({});
  });

  it('lies between the dialect’s defaults and the overrides', () => {
    expect(cacheRulesFor('openai', {}, 'gpt-5.6')).toEqual({
      read: 0.1,
      write: 1.25,
      ttlMs: 1_800_000,
      minPrefix: 1024,
      granularity: 1,
    });
    expect(cacheRulesFor('openai', { write: 1 }, 'gpt-5.6')).toMatchObject({ write: 1, granularity: 1 });
    expect(cacheRulesFor('anthropic', {}, 'claude-haiku-4-5')).toMatchObject({
      write: 1.25,
      minPrefix: 4096,
    });
  });
});

describe('parseCacheRules', () => {
  it.each([
    [{ read: 2 }, 'cache.read'],
    [{ write: 0.5 }, 'cache.write'],
    [{ ttlMs: -1 }, 'cache.ttlMs'],
    [{ granularity: 0 }, 'cache.granularity'],
    [{ reads: 0.1 }, 'cache'],
  ])('throws invalid_config naming the field for %j', (options, path) => {
    const e = thrown(() => parseCacheRules(options));
    expect(isCtxError(e, 'invalid_config')).toBe(true);
    expect((e as { path?: string }).path).toBe(path);
  });

  it('is checked when a pipeline is created', () => {
    const e = thrown(() => createPipeline({ cache: { read: -0.1 } }));
    expect((e as { path?: string }).path).toBe('cache.read');
  });
});

describe('cachedTokens', () => {
  it('serves nothing below the minimum prefix and whole steps above it', () => {
    expect(cachedTokens(1000, CACHE_RULES.openai)).toBe(0);
    expect(cachedTokens(1300, CACHE_RULES.openai)).toBe(1280);
    expect(cachedTokens(1300, CACHE_RULES.anthropic)).toBe(1300);
  });
});

describe('sendCost', () => {
  it('prices cached tokens at the read share and the rest at the write share', () => {
    expect(sendCost(10_000, 8_000, CACHE_RULES.anthropic)).toBeCloseTo(8_000 * 0.1 + 2_000 * 1.25);
    expect(sendCost(10_000, 12_000, CACHE_RULES.openai)).toBeCloseTo(1_000);
  });
});

describe('quoteRewrite', () => {
  const base = { tokens: 40_000, trigger: 110_000, fill: 35_000, growth: 500 };

  it('pays when the session is expected to end before the next compaction and the re-billed suffix is small', () => {
    const q = quoteRewrite({ ...base, saved: 3_000, rebilled: 4_000, sends: 40 }, CACHE_RULES.anthropic);
    expect(q.saving).toBeCloseTo(0.1 * 3_000 * 40);
    expect(q.cost).toBeCloseTo(4_000 * 1.15);
    expect(q.pays).toBe(true);
  });

  it('does not pay when it re-bills a deep suffix to shed a little', () => {
    const q = quoteRewrite({ ...base, saved: 500, rebilled: 70_000, sends: 90 }, CACHE_RULES.anthropic);
    expect(q.pays).toBe(false);
  });

  it('counts the compaction it puts off when the compaction comes first: a loss above the fill', () => {
    const q = quoteRewrite(
      { ...base, tokens: 100_000, saved: 5_000, rebilled: 1_000, sends: 200 },
      CACHE_RULES.anthropic,
    );
    expect(q.saving).toBeLessThan(0);
    expect(q.pays).toBe(false);
  });

  it('never pays while the growth per send is unknown', () => {
    expect(
      quoteRewrite({ ...base, growth: 0, saved: 9_000, rebilled: 1, sends: 10 }, CACHE_RULES.openai).pays,
    ).toBe(false);
  });
});
