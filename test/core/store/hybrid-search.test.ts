import { describe, expect, it } from 'vitest';
import {
  createInMemoryMemoryStore,
  dailyDate,
  hashingEmbedder,
  indexDocument,
  isCtxError,
  normalizeBm25,
  searchMemory,
  temporalDecay,
} from '../../../src/core/index.ts';

const NOW = Date.parse('2026-03-31T15:00:00Z');

describe('normalizeBm25', () => {
  it('maps better (more negative) ranks to higher scores below 1', () => {
    expect([normalizeBm25(0), normalizeBm25(-1), normalizeBm25(-3)]).toEqual([0, 0.5, 0.75]);
  });
});

describe('temporalDecay', () => {
  it('halves after 30 whole days and never boosts future dates', () => {
    expect(temporalDecay('2026-03-01', NOW)).toBeCloseTo(0.5, 10);
    expect(temporalDecay('2026-04-10', NOW)).toBe(1);
    expect(temporalDecay(null, NOW)).toBe(1);
  });
});

describe('dailyDate', () => {
  it('reads the date of a daily memory path only', () => {
    expect([dailyDate('memory/users/u/2026-01-02.md'), dailyDate('MEMORY.md')]).toEqual(['2026-01-02', null]);
  });
});

describe('searchMemory, cowagent mode (000/004 §2.2)', () => {
  it('drops hits under the default 0.1 but keeps them when minScore is 0', async () => {
    const store = createInMemoryMemoryStore();
    await indexDocument(store, 'memory/2025-10-01.md', 'quarterly budget review', { tenant: 't' });
    const q = { now: NOW, mode: 'cowagent' as const };
    expect((await searchMemory(store, 't', 'budget', q)).length).toBe(0);
    expect((await searchMemory(store, 't', 'budget', { ...q, minScore: 0 })).length).toBe(1);
  });

  it('weights vector 0.7 and keyword 0.3 by default when both sides hit', async () => {
    const store = createInMemoryMemoryStore();
    const embedder = hashingEmbedder(64);
    await indexDocument(store, 'MEMORY.md', 'alpha beta', { tenant: 't', embedder });
    const [h] = await searchMemory(store, 't', 'alpha beta', { now: NOW, embedder, mode: 'cowagent' });
    expect(h!.score).toBeCloseTo(0.7 * h!.vectorScore + 0.3 * h!.keywordScore, 10);
    expect(h!.vectorScore).toBeCloseTo(1, 5);
  });

  it('scores 1 for the top hit of both sides and ranks by reciprocal rank when fusion is rrf', async () => {
    const store = createInMemoryMemoryStore();
    const embedder = hashingEmbedder(64);
    await indexDocument(store, 'a.md', 'alpha beta', { tenant: 't', embedder });
    await indexDocument(store, 'b.md', 'alpha gamma delta', { tenant: 't', embedder });
    const hits = await searchMemory(store, 't', 'alpha beta', {
      now: NOW,
      embedder,
      fusion: 'rrf',
      minScore: 0,
      mode: 'cowagent',
    });
    expect(hits.map((h) => h.chunk.source)).toEqual(['a.md', 'b.md']);
    expect(hits[0]!.score).toBeCloseTo(1, 10);
    expect(hits[1]!.score).toBeCloseTo(61 / 62, 10);
  });

  it.each([
    [{ maxResults: 0 }, 'maxResults'],
    [{ minScore: -1 }, 'minScore'],
    [{ vectorWeight: Number.NaN }, 'vectorWeight'],
    [{ windowWeight: -1 }, 'windowWeight'],
    [{ speakerWeight: Number.POSITIVE_INFINITY }, 'speakerWeight'],
    [{ timeWeight: -0.5 }, 'timeWeight'],
  ])("throws 'invalid_config' naming the field when given %o", async (bad, field) => {
    const error = await searchMemory(createInMemoryMemoryStore(), 't', 'x', { now: NOW, ...bad }).catch(
      (e: unknown) => e,
    );
    expect(isCtxError(error, 'invalid_config') && error.path).toBe(field);
  });

  it('caps results at maxResults', async () => {
    const store = createInMemoryMemoryStore();
    for (let i = 0; i < 5; i++) await indexDocument(store, `doc${i}.md`, `apple ${i}`, { tenant: 't' });
    expect((await searchMemory(store, 't', 'apple', { now: NOW, maxResults: 2, minScore: 0 })).length).toBe(
      2,
    );
  });
});
