import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBenchMemory } from '../../src/cli/commands/bench-memory.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { splitEvidence } from '../../src/cli/memory/locomo.ts';

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
  it('reports full keyword recall@5 per category and skips questions without known evidence on a tiny conversation', async () => {
    const io = bufferIo();
    const result = await runBenchMemory({ locomo: synthetic(), embedder: 'hashing' }, io);
    expect(result.embedder).toBe('hashing-512');
    expect(result.rows.map((r) => [r.category, r.questions])).toEqual([
      [1, 1],
      [4, 2],
      [5, 1],
    ]);
    expect(result.rows.find((r) => r.category === 4)!.recall.keyword!.at5).toBe(1);
    expect(result.skippedNoEvidence).toBe(1);
    expect(io.stdout()).toContain('| 4 single-hop | 2 | 100.0 | 100.0 |');
    expect(result.modes).toEqual(['keyword', 'vector', 'hybrid', 'hybrid-.5', 'hybrid-rrf']);
    expect(io.stdout()).toContain('5 adversarial (separate)');
  });

  it.skipIf(!existsSync(REAL))(
    'recalls more at 10 with the equal-weight hybrid than keyword-only, and keyword-only more than USE-lite alone, on the first LoCoMo conversation',
    async () => {
      const result = await runBenchMemory({ locomo: REAL, embedder: 'use-lite', limit: 1 }, bufferIo());
      const at10 = (mode: string) => result.overall.recall[mode]!.at10;
      expect(result.overall.questions).toBeGreaterThan(100);
      expect(at10('hybrid-.5')).toBeGreaterThanOrEqual(at10('keyword'));
      expect(at10('keyword')).toBeGreaterThan(at10('vector'));
    },
    300_000,
  );
});
