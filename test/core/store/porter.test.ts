import { describe, expect, it } from 'vitest';
import {
  createInMemoryMemoryStore,
  isCtxError,
  keywordTerms,
  porterStem,
  searchMemory,
  toFtsQuery,
} from '../../../src/core/index.ts';

describe('porterStem', () => {
  it.each([
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['running', 'run'],
    ['hopping', 'hop'],
    ['agreed', 'agre'],
    ['relational', 'relat'],
    ['generalization', 'gener'],
    ['adoption', 'adopt'],
    ['electricity', 'electr'],
    ['controlling', 'control'],
    ['sky', 'sky'],
    ['90s', '90'],
  ])('stems %s to %s (as FTS5 porter does)', (word, stem) => {
    expect(porterStem(word)).toBe(stem);
  });

  it('leaves short, non-ASCII and over-long tokens alone', () => {
    expect([porterStem('is'), porterStem('cafés'), porterStem(`${'x'.repeat(65)}ing`)]).toEqual([
      'is',
      'cafés',
      `${'x'.repeat(65)}ing`,
    ]);
  });
});

describe('query normalisation', () => {
  it('drops stopwords and stems the rest', () => {
    expect(keywordTerms('What did Caroline paint in the summers?')).toEqual(['carolin', 'paint', 'summer']);
    expect(toFtsQuery('What did Caroline paint?', { dropStopwords: true })).toBe('"caroline" OR "paint"');
    expect(toFtsQuery('What did it do?', { dropStopwords: true })).toBe('');
  });
});

describe('searchMemory, default mode', () => {
  const turns = (texts: readonly string[]) =>
    texts.map((text, i) => ({
      tenant: 't',
      id: `c#${i + 1}`,
      project: '',
      userId: '',
      source: 'conversation',
      startLine: i + 1,
      endLine: i + 1,
      text,
      date: null,
      embedding: null,
      model: null,
    }));

  it('ranks by content words, not by stopwords shared with every turn', async () => {
    const store = createInMemoryMemoryStore();
    await store.replaceChunks(
      't',
      'conversation',
      turns(['What did you do when you were there, and what was it like?', 'I painted the lighthouse.']),
    );
    const hits = await searchMemory(store, 't', 'What did you paint when you were there?', {
      neighbourWeight: 0,
      sourceWeight: 0,
    });
    expect(hits.map((h) => h.chunk.id)).toEqual(['c#2']);
  });

  it('without an embedder gives the keyword side the whole score', async () => {
    const store = createInMemoryMemoryStore();
    await store.replaceChunks('t', 'conversation', turns(['lighthouse', 'nothing']));
    const [h] = await searchMemory(store, 't', 'lighthouse', { neighbourWeight: 0, sourceWeight: 0 });
    expect(h!.score).toBe(1);
  });

  it.each([
    [{ mode: 'other' }, 'mode'],
    [{ neighbourWeight: -1 }, 'neighbourWeight'],
    [{ keywordPool: 0 }, 'keywordPool'],
    [{ halfLifeDays: 0 }, 'halfLifeDays'],
    [{ halfLifeDays: 30 }, 'now'],
  ])("throws 'invalid_config' naming the field when given %o", async (bad, field) => {
    const store = createInMemoryMemoryStore();
    await store.replaceChunks('t', 'conversation', turns(['lighthouse']));
    const error = await searchMemory(store, 't', 'lighthouse', bad as never).catch((e: unknown) => e);
    expect(isCtxError(error, 'invalid_config') && error.path).toBe(field);
  });
});
