import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchModes, runBenchMemory } from '../../src/cli/commands/bench-memory.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { bootstrapInterval, seededRandom } from '../../src/cli/memory/bootstrap.ts';
import { cachingEmbedder } from '../../src/cli/memory/embedding-cache.ts';
import {
  askedAt,
  loadLocomo,
  locomoDate,
  parseLocomo,
  splitEvidence,
  toConversation,
} from '../../src/cli/memory/locomo.ts';
import { DEFAULT_MODES, runMemoryBench, TURNS_ONLY } from '../../src/cli/memory/locomo-bench.ts';
import { lazyUseLiteEmbedder } from '../../src/cli/memory/use-lite-embedder.ts';
import { type FactExtractor, factExtractorFrom, hashingEmbedder } from '../../src/core/index.ts';

const REAL = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'locomo', 'locomo-open.json');

function synthetic(copies = 1): string {
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
  const all = Array.from({ length: copies }, (_, i) => ({
    ...data[0]!,
    sample_id: i === 0 ? 'tiny' : `tiny-${i}`,
  }));
  writeFileSync(file, JSON.stringify(all));
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
    expect(io.stdout()).toContain('| 4 single-hop | 2 | 100.0 (100.0–100.0) | 100.0 (100.0–100.0) |');
    expect(result.modes).toEqual(['default', 'turns', 'keyword', 'vector', 'cowagent', 'bm25']);
    const cell = result.overall.recall.default!;
    expect(cell.ci10.low).toBeLessThanOrEqual(cell.at10);
    expect(cell.ci10.high).toBeGreaterThanOrEqual(cell.at10);
    expect(io.stdout()).toContain('5 adversarial (separate)');
    const d = result.overall.recall.default!;
    expect(io.stdout()).toContain(
      `default: R@5 ${(d.at5 * 100).toFixed(1)}, R@10 ${(d.at10 * 100).toFixed(1)}`,
    );
    expect(io.stdout()).toMatch(/default R@10 by category: 1 multi-hop \d+\.\d, 4 single-hop/);
    expect(result.summary.at10ByCategory.keyword!['4']).toBe(1);
    expect(result.latency.default!.turns).toBe(4);
    // 4 turns, 4 windows, 4 fact keys (no session spans by default).
    expect(result.latency.default!.chunks).toBe(12);
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
    ['{"statementWeight":2}', /--search: statementWeight: /],
    ['{"listPerSession":1.5}', /--search: listPerSession: /],
    ['{"mode":"cowagent"}', /--search: .*mode/],
    ['{x', /--search: not JSON/],
  ])('rejects --search %s with one line naming the problem', async (search, message) => {
    await expect(runBenchMemory({ locomo: synthetic(), cacheDir: null, search }, bufferIo())).rejects.toThrow(
      message,
    );
  });

  it('applies --search to the default, turns and keyword modes only, keeping turns free of units', async () => {
    const result = await runBenchMemory(
      {
        locomo: synthetic(),
        embedder: 'hashing',
        cacheDir: null,
        search: '{"keywordWeight":0,"factWeight":1}',
      },
      bufferIo(),
    );
    expect(result.overall.recall.keyword!.at10).toBe(0);
    expect(result.overall.recall.bm25!.at10).toBeGreaterThan(0);
    const turns = benchModes({ windowWeight: 3, speakerWeight: 3, neighbourWeight: 0 }).find(
      (m) => m.name === 'turns',
    )!;
    expect(turns.search).toMatchObject(TURNS_ONLY);
    expect(benchModes({ windowWeight: 3 }).find((m) => m.name === 'default')!.search).toEqual({
      windowWeight: 3,
    });
  });

  it('runs the leave-one-conversation-out selection with --loco: one fold per conversation', async () => {
    const io = bufferIo();
    const result = await runBenchMemory(
      { locomo: synthetic(2), embedder: 'hashing', cacheDir: null, loco: true, objective: 'questions' },
      io,
    );
    const selection = result.selection!;
    expect(selection.objective).toBe('questions');
    expect(selection.folds.map((f) => f.heldOut)).toEqual(['tiny', 'tiny-1']);
    expect(Object.keys(selection.chosen).sort()).toEqual(
      [
        'facts',
        'neighbour',
        'session',
        'source',
        'speaker',
        'time',
        'vector',
        'when',
        'window',
        'statement',
        'listKeyword',
        'listFacts',
        'listNeighbour',
        'listPerSession',
      ].sort(),
    );
    expect(selection.pooled.byCategory['4']!.questions).toBe(4);
    expect(io.stdout()).toContain('| tiny-1 |');
    expect(io.stdout()).toMatch(/held out, pooled: R@5 \d+\.\d, R@10 \d+\.\d/);
  });

  it('writes the model facts of each session before searching when given an extractor, and finds what only a fact says', async () => {
    const [conv] = await loadLocomo(synthetic());
    conv!.questions = [{ question: 'Who relocates to Portugal?', evidence: ['D1:3'], category: 4 }];
    const sessions: string[] = [];
    const facts = factExtractorFrom((call) => {
      sessions.push(call.prompt.includes('D1:3') ? 'session_1' : 'other');
      return JSON.stringify({
        facts: [{ fact: "A's sister relocates to Portugal in March 2023.", turns: ['D1:3'] }],
      });
    });
    const modes = DEFAULT_MODES.filter((m) => m.name === 'keyword');
    const run = (extractor?: FactExtractor) =>
      runMemoryBench({
        conversations: [conv!],
        embedder: hashingEmbedder(64),
        modes,
        latencySearches: 0,
        ...(extractor ? { facts: extractor } : {}),
      });
    const without = await run();
    const withFacts = await run(facts);
    expect(sessions).toEqual(['session_1']);
    expect([without.facts, withFacts.facts]).toEqual([undefined, { facts: 1, failedSessions: 0 }]);
    expect([without.overall.recall.keyword!.at5, withFacts.overall.recall.keyword!.at5]).toEqual([0, 1]);
  });

  it('rejects a --limit that is not a positive integer', async () => {
    await expect(
      runBenchMemory({ locomo: synthetic(), limit: 0, cacheDir: null }, bufferIo()),
    ).rejects.toThrow(/--limit/);
  });

  it.skipIf(!existsSync(REAL))(
    'recalls at least as much at 10 by default as keyword-only, and keyword-only more than plain BM25, on the first LoCoMo conversation',
    async () => {
      // The fast representative of bench-memory.slow.test.ts (every mode, the whole open half): the
      // first conversation, three modes, no latency pass. The repo's embedding cache (git-ignored)
      // makes reruns cheap; a cold run embeds ~600 texts with USE-lite.
      const [first] = await loadLocomo(REAL);
      const embedder = cachingEmbedder(
        lazyUseLiteEmbedder(),
        resolve(import.meta.dirname, '..', '..', '.ctxkit-cache'),
      );
      const result = await runMemoryBench({
        conversations: [first!],
        embedder,
        modes: DEFAULT_MODES.filter((m) => ['default', 'keyword', 'bm25'].includes(m.name)),
        adversarial: false,
        latencySearches: 0,
      });
      const at10 = (mode: string) => result.overall.recall[mode]!.at10;
      expect(result.overall.questions).toBeGreaterThan(100);
      expect(at10('default')).toBeGreaterThanOrEqual(at10('keyword'));
      expect(at10('keyword')).toBeGreaterThan(at10('bm25'));
      expect(at10('default')).toBeGreaterThan(0.7);
    },
    120_000,
  );
});

describe('bootstrapInterval', () => {
  it('brackets the mean, narrows with more questions and repeats itself for a seed', () => {
    const random = seededRandom(7);
    const values = (n: number) => Array.from({ length: n }, () => (random() < 0.6 ? 1 : 0));
    const small = values(50);
    const large = values(2000);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const a = bootstrapInterval(small);
    expect(a.low).toBeLessThanOrEqual(mean(small));
    expect(a.high).toBeGreaterThanOrEqual(mean(small));
    const b = bootstrapInterval(large);
    expect(b.high - b.low).toBeLessThan(a.high - a.low);
    expect(bootstrapInterval(small)).toEqual(a);
    expect(bootstrapInterval([0.5])).toEqual({ low: 0.5, high: 0.5 });
  });
});

describe('toConversation', () => {
  it('groups turns into dated sessions and asks the day after the last one', () => {
    const [conv] = parseLocomo([
      {
        sample_id: 'c',
        conversation: {
          session_1_date_time: '1:56 pm on 8 May, 2023',
          session_1: [{ speaker: 'A', dia_id: 'D1:1', text: 'hi' }],
          session_2_date_time: '2:00 pm on 9 May, 2023',
          session_2: [{ speaker: 'B', dia_id: 'D2:1', text: 'yo', blip_caption: 'a dog' }],
        },
        qa: [],
      },
    ]);
    expect(toConversation(conv!)).toEqual({
      id: 'c',
      sessions: [
        { id: 'session_1', date: '2023-05-08', turns: [{ id: 'D1:1', speaker: 'A', text: 'hi' }] },
        {
          id: 'session_2',
          date: '2023-05-09',
          turns: [{ id: 'D2:1', speaker: 'B', text: 'yo [shares a photo: a dog]' }],
        },
      ],
    });
    expect(new Date(askedAt(conv!)).toISOString()).toBe('2023-05-10T00:00:00.000Z');
    expect(locomoDate('sometime')).toBeNull();
  });
});
