import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBenchMemory } from '../../src/cli/commands/bench-memory.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { splitEvidence } from '../../src/cli/memory/locomo.ts';
import { USE_LITE_MODEL_ID } from '../../src/cli/memory/use-lite-embedder.ts';

const REAL = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'locomo', 'locomo-open.json');

function synthetic(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-locomo-'));
  const file = join(dir, 'tiny.json');
  const turns = [
    ['A', 'D1:1', 'I adopted a golden retriever puppy named Biscuit last week.'],
    ['B', 'D1:2', 'That is lovely, I have been busy painting a sunrise over the lake.'],
    ['A', 'D1:3', 'My sister is moving to Lisbon for her new job in March.'],
    ['B', 'D1:4', 'I started learning the violin at the community music school.'],
  ];
  const data = [
    {
      sample_id: 'tiny',
      conversation: {
        speaker_a: 'A',
        speaker_b: 'B',
        session_1_date_time: '1:00 pm on 8 May, 2023',
        session_1: turns.map(([speaker, dia_id, text]) => ({ speaker, dia_id, text })),
      },
      qa: [
        {
          question: 'What is the name of the puppy A adopted?',
          answer: 'Biscuit',
          evidence: ['D1:1'],
          category: 4,
        },
        { question: 'Where is the sister moving?', answer: 'Lisbon', evidence: ['D1:3; D1:9'], category: 1 },
        { question: 'Which instrument is B learning?', answer: 'violin', evidence: ['D1:4'], category: 4 },
        { question: 'What did A paint?', evidence: ['D1:2'], category: 5 },
        { question: 'Nothing to find', evidence: ['D7:1'], category: 2 },
      ],
    },
  ];
  writeFileSync(file, JSON.stringify(data));
  return file;
}

describe('splitEvidence', () => {
  it('splits malformed evidence ids on semicolons and spaces', () => {
    expect(splitEvidence(['D8:6; D9:17', 'D1:2'])).toEqual(['D8:6', 'D9:17', 'D1:2']);
  });
});

describe('runBenchMemory', () => {
  it('reports recall per category, the default line and skips questions without known evidence on a tiny conversation', async () => {
    const io = bufferIo();
    const result = await runBenchMemory({ locomo: synthetic(), embedder: 'hashing', cacheDir: null }, io);
    expect(result.embedder).toBe('hashing-512');
    expect(result.rows.map((r) => [r.category, r.questions])).toEqual([
      [1, 1],
      [4, 2],
      [5, 1],
    ]);
    expect(result.rows.find((r) => r.category === 4)!.recall.keyword!.at5).toBe(1);
    expect(result.skippedNoEvidence).toBe(1);
    expect(io.stdout()).toContain('| 4 single-hop | 2 | 100.0 | 100.0 |');
    expect(result.modes).toEqual(['default', 'keyword', 'vector', 'cowagent', 'bm25']);
    expect(io.stdout()).toContain('5 adversarial (separate)');
    const d = result.overall.recall.default!;
    expect(io.stdout()).toContain(
      `default: R@5 ${(d.at5 * 100).toFixed(1)}, R@10 ${(d.at10 * 100).toFixed(1)}`,
    );
    expect(io.stdout()).toMatch(/default R@10 by category: 1 multi-hop \d+\.\d, 4 single-hop/);
    expect(result.summary.at10ByCategory.keyword!['4']).toBe(1);
    expect(result.latency.default!.turns).toBe(4);
  });

  it('persists embeddings by model and text hash: a second run embeds nothing', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'ctxkit-embcache-'));
    const file = synthetic();
    const first = await runBenchMemory({ locomo: file, embedder: 'hashing', cacheDir }, bufferIo());
    expect(first.summary.embeddings.embedded).toBeGreaterThan(0);
    const second = await runBenchMemory({ locomo: file, embedder: 'hashing', cacheDir }, bufferIo());
    expect(second.summary.embeddings.embedded).toBe(0);
    expect(second.overall).toEqual(first.overall);
  });

  it.each([
    ['{"neighbourWeight":-1}', /--search: neighbourWeight: /],
    ['{"mode":"cowagent"}', /--search: .*mode/],
    ['{x', /--search: not JSON/],
  ])('rejects --search %s with one line naming the problem', async (search, message) => {
    await expect(runBenchMemory({ locomo: synthetic(), cacheDir: null, search }, bufferIo())).rejects.toThrow(
      message,
    );
  });

  it('applies --search to the default and keyword modes only', async () => {
    const result = await runBenchMemory(
      { locomo: synthetic(), embedder: 'hashing', cacheDir: null, search: '{"keywordWeight":0}' },
      bufferIo(),
    );
    expect(result.overall.recall.keyword!.at10).toBe(0);
    expect(result.overall.recall.bm25!.at10).toBeGreaterThan(0);
  });

  it('rejects a --limit that is not a positive integer', async () => {
    await expect(
      runBenchMemory({ locomo: synthetic(), limit: 0, cacheDir: null }, bufferIo()),
    ).rejects.toThrow(/--limit/);
  });

  it.skipIf(!existsSync(REAL))(
    'recalls at least as much at 10 by default as keyword-only, and keyword-only as much as plain BM25, on the first LoCoMo conversation',
    async () => {
      // The repo's embedding cache (git-ignored) makes reruns cheap; a cold run embeds ~600 texts.
      const result = await runBenchMemory(
        {
          locomo: REAL,
          embedder: 'use-lite',
          limit: 1,
          cacheDir: resolve(import.meta.dirname, '..', '..', '.ctxkit-cache'),
        },
        bufferIo(),
      );
      const at10 = (mode: string) => result.overall.recall[mode]!.at10;
      expect(result.embedder).toBe(USE_LITE_MODEL_ID);
      expect(result.overall.questions).toBeGreaterThan(100);
      expect(at10('default')).toBeGreaterThanOrEqual(at10('keyword'));
      expect(at10('keyword')).toBeGreaterThanOrEqual(at10('bm25'));
      expect(at10('default')).toBeGreaterThan(at10('cowagent'));
    },
    300_000,
  );
});
