/**
 * Preset behaviours of SEED-RULES that differ from ctxkit's own defaults (issue #18): tiancai's strategy
 * names and usage total, the CowAgent CJK fallback. The fixtures in `fixtures/` play them end to end;
 * these check the edges a fixture cannot state (config errors, the function contracts).
 */
import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../../src/core/errors.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import { normalizeToolSummaryStrategy } from '../../../src/core/pipeline/stages/archiving.ts';
import { searchMemory } from '../../../src/core/store/hybrid-search.ts';
import { createInMemoryMemoryStore } from '../../../src/core/store/in-memory-memory-store.ts';
import { indexDocument } from '../../../src/core/store/memory-index.ts';
import { usageTotal } from '../../../src/core/tokens/context.ts';

function configError(fn: () => unknown): { code: string; path: string | undefined } | undefined {
  try {
    fn();
  } catch (e) {
    if (isCtxError(e)) return { code: e.code, path: e.path };
    throw e;
  }
  return undefined;
}

describe('tiancai tool summary strategy names (003 §5.3)', () => {
  it.each([
    ['llm', 'llm'],
    ['LLM', 'llm'],
    ['  Heuristic\t', 'heuristic'],
    ['OFF', 'off'],
    ['', 'llm'],
    ['   ', 'llm'],
  ])('%j → %s, no warning', (name, strategy) => {
    expect(normalizeToolSummaryStrategy(name)).toEqual({ strategy });
  });

  it('an unknown name means llm, with a warning naming it', () => {
    expect(normalizeToolSummaryStrategy('gpt')).toEqual({
      strategy: 'llm',
      warning: 'unknown tool summary strategy "gpt"; using llm (003 default)',
    });
  });

  it('the tiancai preset accepts any case, empty and unknown names', () => {
    for (const strategy of ['LLM', '', 'fancy', ' off '])
      expect(() =>
        createPipeline({ preset: 'tiancai', config: { archiving: { strategy } as never } }),
      ).not.toThrow();
  });

  it('the tiancai preset still rejects a strategy that is not a string', () => {
    expect(
      configError(() =>
        createPipeline({ preset: 'tiancai', config: { archiving: { strategy: 3 } as never } }),
      ),
    ).toEqual({ code: 'invalid_config', path: 'archiving.strategy' });
  });

  it('the default preset keeps strict names: a typo is a config error naming the field', () => {
    expect(
      configError(() =>
        createPipeline({ preset: 'default', config: { archiving: { strategy: 'LLM' } as never } }),
      ),
    ).toEqual({ code: 'invalid_config', path: 'toolArchiving.strategy' });
  });
});

describe('usageTotal (003 §5.5)', () => {
  it('takes the total only when it is > 0, else input + output + cache read + cache write', () => {
    expect(usageTotal({ inputTokens: 10, outputTokens: 5, totalTokens: 100 })).toBe(100);
    expect(
      usageTotal({
        inputTokens: 10,
        outputTokens: 5,
        totalTokens: 0,
        cacheReadTokens: 3,
        cacheWriteTokens: 2,
      }),
    ).toBe(20);
    expect(usageTotal({ inputTokens: 10, outputTokens: 5 })).toBe(15);
    expect(usageTotal({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })).toBe(0);
  });

  it('is 0 for aborted and error stops, whatever their case', () => {
    expect(usageTotal({ inputTokens: 10, outputTokens: 5, totalTokens: 15, stopReason: ' Aborted ' })).toBe(
      0,
    );
    expect(usageTotal({ inputTokens: 10, outputTokens: 5, stopReason: 'ERROR' })).toBe(0);
  });
});

describe('CJK LIKE fallback (004 §2.2)', () => {
  const NOW = Date.UTC(2026, 0, 1);
  async function store() {
    const s = createInMemoryMemoryStore();
    await indexDocument(s, 'a.md', '记录：迁移已经完成。', { tenant: 't' });
    await indexDocument(s, 'b.md', '数据库的迁移步骤。', { tenant: 't' });
    return s;
  }

  it('runs (cowagent): whole runs of ≥ 2 ideographs, every hit 0.5, store order', async () => {
    const hits = await searchMemory(await store(), 't', '数据库 迁移', {
      now: NOW,
      mode: 'cowagent',
      cjkFallback: 'runs',
    });
    expect(hits.map((h) => [h.chunk.source, h.keywordScore])).toEqual([
      ['a.md', 0.5],
      ['b.md', 0.5],
    ]);
    expect(
      await searchMemory(await store(), 't', '库', {
        now: NOW,
        mode: 'cowagent',
        cjkFallback: 'runs',
        minScore: 0,
      }),
    ).toEqual([]);
  });

  it('bigrams (default): coverage scores, so a partial match ranks below a whole one', async () => {
    const hits = await searchMemory(await store(), 't', '数据库 迁移', { now: NOW });
    expect(hits.map((h) => h.chunk.source)).toEqual(['b.md', 'a.md']);
    expect(hits[0]?.keywordScore).toBeGreaterThan(hits[1]?.keywordScore ?? 1);
  });

  it("rejects an unknown fallback with 'invalid_config'", async () => {
    const error = await searchMemory(await store(), 't', 'x', {
      now: NOW,
      cjkFallback: 'words' as never,
    }).catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_config') && error.path).toBe('cjkFallback');
  });
});

describe('the flushed-text record in the carried state', () => {
  it("rejects a record that is not an array of keys with 'invalid_input' naming state.flushed", async () => {
    const pipeline = createPipeline({ preset: 'cowagent' });
    const state = { compactionFailures: 0, pendingInjections: [], overflowAttempts: 0, flushed: 'abc' };
    const error = await pipeline.prepare({ messages: [], state: state as never }).catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_input') && error.path).toBe('state.flushed');
  });
});
