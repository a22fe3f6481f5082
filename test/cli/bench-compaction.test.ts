import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCases, loadHeldOutCases } from '../../src/cli/bench-compaction/cases.ts';
import { referenceRecall, salientReferences } from '../../src/cli/bench-compaction/measure.ts';
import { type BenchRow, goalsOf, meansOf, runCompactionBench } from '../../src/cli/bench-compaction/run.ts';
import { observationMasking, recentAtBudget } from '../../src/cli/bench-compaction/strategies.ts';
import { createCli } from '../../src/cli/cli.ts';
import { renderCompactionBench } from '../../src/cli/commands/bench-compaction.ts';
import { bufferIo } from '../../src/cli/io.ts';
import {
  assistant,
  createChars4Counter,
  createDeterministicSummarizer,
  toolCall,
  toolResult,
  user,
} from '../../src/core/index.ts';
import { startFakeOpenAIServer } from '../support/fake-openai-server.ts';

const DATA = resolve(import.meta.dirname, '../../../shared/data/trajectories');

describe('salientReferences', () => {
  it('keeps the references the agent uses after the cut that occurred before it', () => {
    const prefix = [user('look at src/app/main.ts and parse_config'), assistant('reading src/app/main.ts')];
    const after = [
      assistant('now editing', [toolCall('c1', 'edit', { path: 'src/app/main.ts', symbol: 'parse_config' })]),
      toolResult('c1', 'edit', 'ok, also touched newHelper'),
      assistant('and brandNewThing'),
    ];
    expect(salientReferences(prefix, after).sort()).toEqual(['main.ts', 'parse_config', 'src/app/main.ts']);
  });
});

describe('referenceRecall', () => {
  it('is the share of references present anywhere in the compacted context', () => {
    expect(referenceRecall(['a.ts', 'b.ts'], [user('only a.ts here')])).toBe(0.5);
    expect(referenceRecall([], [])).toBe(1);
  });
});

describe('recentAtBudget', () => {
  it('keeps the newest messages within the budget and never starts on a tool result', () => {
    const c = createChars4Counter();
    const ms = [
      user('x'.repeat(400)),
      assistant('', [toolCall('c', 'f')]),
      toolResult('c', 'f', 'y'.repeat(40)),
      user('z'),
    ];
    expect(recentAtBudget(ms, 11, c).map((m) => m.role)).toEqual(['user']);
    expect(recentAtBudget(ms, 12, c).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(recentAtBudget(ms, 1000, c)).toHaveLength(4);
  });
});

describe('observationMasking', () => {
  it('masks tool outputs older than the last N assistant turns', () => {
    const ms = [
      user('go'),
      assistant('', [toolCall('a', 'f')]),
      toolResult('a', 'f', 'old output'),
      assistant('', [toolCall('b', 'f')]),
      toolResult('b', 'f', 'new output'),
    ];
    const masked = observationMasking(ms, 1);
    expect(masked[2]!.parts[0]).toMatchObject({ output: '[output omitted]' });
    expect(masked[4]).toBe(ms[4]);
  });
});

describe('loadHeldOutCases', () => {
  it('holds the shorter runs and sub-agent transcripts the tuned set leaves out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-heldout-'));
    mkdirSync(join(dir, 'src'));
    const run = (n: number) => ({
      id: 'r',
      messages: Array.from({ length: n }, (_, i) =>
        i % 2 === 0 ? { role: 'user', content: `do step ${i}` } : { role: 'assistant', content: `did ${i}` },
      ),
    });
    writeFileSync(join(dir, 'src', 'long.json'), JSON.stringify(run(120)));
    writeFileSync(join(dir, 'src', 'medium.json'), JSON.stringify(run(60)));
    writeFileSync(join(dir, 'src', 'long__agent-x.json'), JSON.stringify(run(60)));
    writeFileSync(join(dir, 'src', 'short.json'), JSON.stringify(run(20)));
    expect(loadCases(dir).map((c) => c.id)).toEqual(['src/long.json@50%', 'src/long.json@75%']);
    expect(loadHeldOutCases(dir).map((c) => c.id)).toEqual([
      'src/long__agent-x.json@50%',
      'src/long__agent-x.json@75%',
      'src/medium.json@50%',
      'src/medium.json@75%',
    ]);
  });
});

describe('renderCompactionBench', () => {
  it('groups the means by reduction band, best recall first', () => {
    const row = (strategy: string, reduction: number, recall: number) => ({
      case: 'c',
      source: 'src',
      cut: '50%' as const,
      strategy,
      prefixTokens: 100,
      tokens: Math.round(100 * (1 - reduction)),
      reduction,
      recall,
      references: 4,
      overBudget: false,
      fixedTokens: 0,
    });
    const rows = [row('a', 0.96, 0.5), row('b', 0.97, 0.8), row('c', 0.85, 0.9)];
    const text = renderCompactionBench({ rows, means: meansOf(rows, 'all'), goals: [], cases: 1 });
    const band = text.split('By reduction band')[1]!;
    expect(band.indexOf('| b |')).toBeLessThan(band.indexOf('| a |'));
    expect(band).toContain('| ≥ 80.0% | c | 85.0% | 90.0% |');
  });
});

describe('goalsOf', () => {
  const row = (c: string, strategy: string, reduction: number, recall: number, fixed = 0): BenchRow => ({
    case: c,
    source: 'src',
    cut: '50%',
    strategy,
    prefixTokens: 1000,
    tokens: Math.round(1000 * (1 - reduction)),
    reduction,
    recall,
    references: 4,
    overBudget: false,
    fixedTokens: fixed,
  });

  it('picks the best default strategy that sheds the band on every cut and says whether it meets the goal', () => {
    const rows = [
      row('x', 'default @ 5% of prefix', 0.97, 0.7),
      row('y', 'default @ 5% of prefix', 0.96, 0.8),
      row('x', 'default @ 10% of prefix', 0.96, 0.9),
      row('y', 'default @ 10% of prefix', 0.94, 1), // under 95% on one cut: not a candidate for that band
      row('x', 'observation masking', 0.99, 1), // not the default preset
      row('y', 'observation masking', 0.99, 1),
    ];
    const [at95, at80] = goalsOf(rows, 'all');
    expect(at95).toMatchObject({ strategy: 'default @ 5% of prefix', recall: 0.75, met: true, cases: 2 });
    expect(at80).toMatchObject({ strategy: 'default @ 10% of prefix', recall: 0.95, met: true });
  });

  it('leaves out the cuts whose system prompt and current step alone are larger than the band allows', () => {
    const rows = [
      row('x', 'default @ 5% of prefix', 0.97, 0.5),
      row('t', 'default @ 5% of prefix', 0.7, 0, 300),
    ];
    const [at95] = goalsOf(rows, 'all');
    expect(at95).toMatchObject({ cases: 1, unreachable: 1, recall: 0.5, met: false });
    expect(goalsOf([rows[1]!], 'tau')[0]).toMatchObject({ cases: 0, unreachable: 1, met: false });
  });
});

describe('runCompactionBench', () => {
  it('measures every strategy on a synthetic trajectory cut at 50% and 75%', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-'));
    mkdirSync(join(dir, 'synthetic'));
    const messages: unknown[] = [];
    for (let i = 0; i < 60; i++) {
      messages.push({ role: 'user', content: `step ${i}: fix src/mod_${i % 7}/file_${i % 5}.py` });
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `c${i}`,
            type: 'function',
            function: {
              name: 'read',
              arguments: JSON.stringify({ path: `src/mod_${i % 7}/file_${i % 5}.py` }),
            },
          },
        ],
      });
      messages.push({
        role: 'tool',
        tool_call_id: `c${i}`,
        content: `def handler_${i % 5}():\n${'    pass\n'.repeat(40)}`,
      });
    }
    writeFileSync(join(dir, 'synthetic', 'run.json'), JSON.stringify({ id: 'run', messages }));
    expect(loadCases(dir).map((c) => c.cut)).toEqual(['50%', '75%']);
    const result = await runCompactionBench({
      dataDir: dir,
      presets: ['default'],
      windows: [4000],
      shares: [],
      summarizer: createDeterministicSummarizer(),
    });
    const mean = (s: string) => result.means.find((m) => m.strategy === s)!;
    expect(mean('full prefix')).toMatchObject({ reduction: 0, recall: 1 });
    expect(mean('observation masking').reduction).toBeGreaterThan(0.3);
    expect(mean('default @ 4k').reduction).toBeGreaterThan(0.5);
    // The ahead path: prepared one step before each cut, applied at the cut, the same recall.
    const ahead = await runCompactionBench({
      dataDir: dir,
      presets: ['default'],
      windows: [4000],
      shares: [],
      summarizer: createDeterministicSummarizer(),
      ahead: true,
    });
    expect(ahead.ahead!.runs).toBe(2);
    expect(ahead.ahead!.ahead).toBeGreaterThanOrEqual(1);
    expect(ahead.means.find((m) => m.strategy === 'default @ 4k')!.recall).toBe(mean('default @ 4k').recall);
  });

  it.skipIf(!existsSync(DATA))(
    'reproduces the production summaries and masking on the real sessions',
    async () => {
      const result = await runCompactionBench({
        dataDir: DATA,
        presets: [],
        windows: [],
        shares: [],
        summarizer: createDeterministicSummarizer(),
        filter: '@production',
      });
      const mean = (s: string) => result.means.find((m) => m.strategy === s)!;
      expect(result.cases).toBe(3);
      expect(mean('production summary').reduction).toBeGreaterThan(0.9);
      expect(mean('observation masking').recall).toBeGreaterThan(mean('production summary').recall);
    },
  );

  /** The real trajectories, `default` at 5–30% of each prefix (the tuned cut points or the held-out ones). */
  const defaultAtShares = (heldOut: boolean) =>
    runCompactionBench({
      dataDir: DATA,
      presets: [],
      windows: [],
      shares: [0.05, 0.1, 0.2, 0.3, 0.5, 0.7],
      summarizer: createDeterministicSummarizer(),
      heldOut,
    });

  // Issue 9's goals for the default preset without an LLM, over every cut point (the production
  // cuts and 50% / 75% of the other long runs): some window sheds ≥ 95% on every cut and keeps ≥ 75% of
  // the references on average; some window sheds ≥ 80% on every cut and keeps ≥ 95%.
  it.skipIf(!existsSync(DATA))(
    'meets the default preset goals on the real sessions',
    async () => {
      const result = await defaultAtShares(false);
      expect(result.cases).toBeGreaterThanOrEqual(15);
      const goals = result.goals.filter((g) => ['all', 'production', 'long-run'].includes(g.group));
      // One mini-swe-agent cut ends on a step larger than 5% of its prefix: a compaction that keeps the
      // current step verbatim (#25) cannot shed 95% of it, so it is out of the 95% band.
      expect(goals.map((g) => [g.group, g.band, g.met, g.unreachable])).toEqual([
        ['all', 0.95, true, 1],
        ['all', 0.8, true, 0],
        ['production', 0.95, true, 0],
        ['production', 0.8, true, 0],
        ['long-run', 0.95, true, 1],
        ['long-run', 0.8, true, 0],
      ]);
      // …and at ≥ 95% reduction it beats the production summaries on their own cuts.
      const production = result.rows.filter((r) => r.strategy === 'production summary');
      const at95 = result.goals.find((g) => g.group === 'production' && g.band === 0.95)!;
      const ours = result.rows.filter((r) => r.strategy === at95.strategy && r.cut === 'production');
      const avg = (rs: typeof ours) => rs.reduce((n, r) => n + r.recall, 0) / Math.max(1, rs.length);
      expect(ours).toHaveLength(production.length);
      expect(avg(ours)).toBeGreaterThan(avg(production) + 0.25);
    },
    60_000,
  );

  // The same rules on cuts they were not tuned on (runs from 40 messages, sub-agent transcripts).
  // Met for mini-swe-agent; the Claude Code sub-agent misses at ≥ 95% (an exploration whose final report
  // cites ~90 of the ~280 references it read), and τ-bench's system prompt alone is 17–60% of every
  // prefix, so its ≥ 80% and ≥ 95% bands are unreachable for any strategy that keeps it.
  it.skipIf(!existsSync(DATA))(
    'holds the goals on the held-out mini-swe-agent cuts and reports the unreachable ones',
    async () => {
      const result = await defaultAtShares(true);
      const goal = (group: string, band: number) =>
        result.goals.find((g) => g.group === group && g.band === band)!;
      // Since #25 keeps the current step verbatim, 7 held-out cuts end on a step over 5% of their prefix
      // (out of the 95% band) and no `default` window sheds 95% on every other one (a regression guard:
      // met before, when the current step could be folded).
      expect(goal('mini-swe-agent', 0.95)).toMatchObject({ met: false, unreachable: 7 });
      expect(goal('mini-swe-agent', 0.8)).toMatchObject({ met: true, unreachable: 1 });
      expect(goal('claude-code', 0.8).met).toBe(true);
      // Not met (a regression guard, not the goal): 63.9% at 95.2% reduction when measured, 52.8% at
      // 96.0% since #25 keeps the current step verbatim (the summary's share of a 5% window is smaller),
      // 40.3% at 95.5% since #41 brings a compaction to 30% of usable instead of 55% of the trigger
      // (a smaller summary in these windows of a few hundred tokens; docs/cache.md).
      expect(goal('claude-code', 0.95).recall).toBeGreaterThan(0.35);
      expect(goal('tau-bench', 0.95)).toMatchObject({ cases: 0, met: false });
    },
    60_000,
  );
});

describe('benchCompactionCommand', () => {
  const synthetic = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-cli-'));
    mkdirSync(join(dir, 'runs'));
    const messages = Array.from({ length: 120 }, (_, i) =>
      i % 2 === 0
        ? { role: 'user', content: `step ${i}: look at src/mod_${i % 7}/file_${i % 5}.py` }
        : { role: 'assistant', content: `reading src/mod_${i % 7}/file_${i % 5}.py and parse_item_${i % 3}` },
    );
    writeFileSync(join(dir, 'runs', 'run.json'), JSON.stringify({ id: 'run', messages }));
    return dir;
  };

  it('prints the per-cut tables and the reduction bands when run from the CLI', async () => {
    const dir = synthetic();
    const io = bufferIo({ cwd: dir });
    const code = await createCli(
      ['bench', 'compaction', '--data', '.', '--presets', 'default', '--windows', '4000', '--shares', '0.2'],
      io,
    ).run();
    expect(code).toBe(0);
    expect(io.stdout()).toContain('runs/run.json@50%');
    expect(io.stdout()).toContain('By reduction band');
  });

  it('names the file and what is wrong when a trajectory is not valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-bad-'));
    mkdirSync(join(dir, 'runs'));
    writeFileSync(join(dir, 'runs', 'a.json'), '{not json');
    const run = async () => {
      const io = bufferIo({ cwd: dir });
      const code = await createCli(['bench', 'compaction', '--data', '.'], io).run();
      return { code, err: io.stderr() };
    };
    expect(await run()).toMatchObject({
      code: 2,
      err: expect.stringContaining('runs/a.json: not valid JSON'),
    });
    writeFileSync(join(dir, 'runs', 'a.json'), '[1, 2]');
    expect(await run()).toMatchObject({
      code: 2,
      err: expect.stringContaining('runs/a.json:messages: expected an object with a messages array'),
    });
  });

  it('summarises with the configured provider under --llm, the reference index topping up its answer', async () => {
    const server = await startFakeOpenAIServer({
      fallback: {
        kind: 'answer',
        content: JSON.stringify({ summary: '## Goal\nWalk through the modules.', memories: [] }),
      },
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-llm-'));
      mkdirSync(join(dir, 'runs'));
      const filler = 'and then some more words about the work at hand '.repeat(12);
      const messages = Array.from({ length: 120 }, (_, i) =>
        i % 2 === 0
          ? { role: 'user', content: `step ${i}: look at src/mod_${i % 7}/file_${i % 5}.py ${filler}` }
          : {
              role: 'assistant',
              content: `reading src/mod_${i % 7}/file_${i % 5}.py and parse_item_${i % 3}`,
            },
      );
      writeFileSync(join(dir, 'runs', 'run.json'), JSON.stringify({ id: 'run', messages }));
      const io = bufferIo({
        cwd: dir,
        env: {
          CTXKIT_LLM_BASE_URL: server.baseURL,
          CTXKIT_LLM_MODEL: 'fake-model',
          CTXKIT_LLM_MAX_RETRIES: '0',
        },
      });
      const args = ['bench', 'compaction', '--data', '.', '--presets', 'default', '--windows', '2000'];
      const code = await createCli([...args, '--shares', '', '--llm', '--json'], io).run();
      expect(code).toBe(0);
      expect(io.stderr()).toContain('summarizer:');
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests[0]!.body.model).toBe('fake-model');
      const rows = (JSON.parse(io.stdout()) as { rows: BenchRow[] }).rows.filter(
        (r) => r.strategy === 'default @ 2k',
      );
      // The answer names no file; the index under it keeps the run's paths.
      expect(rows.length).toBe(2);
      for (const r of rows) {
        expect(r.reduction).toBeGreaterThan(0.5);
        expect(r.recall).toBeGreaterThan(0.5);
      }
    } finally {
      await server.close();
    }
  });

  it('refuses --llm when no provider is configured instead of falling back silently', async () => {
    const io = bufferIo({ cwd: synthetic(), env: {} });
    const code = await createCli(['bench', 'compaction', '--data', '.', '--llm'], io).run();
    expect(code).toBe(2);
    expect(io.stderr()).toContain('--llm: no LLM provider configured');
  });
});
