import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCases, loadHeldOutCases } from '../../src/cli/bench-compaction/cases.ts';
import { referenceRecall, salientReferences } from '../../src/cli/bench-compaction/measure.ts';
import { meansOf, runCompactionBench } from '../../src/cli/bench-compaction/run.ts';
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
    });
    const rows = [row('a', 0.96, 0.5), row('b', 0.97, 0.8), row('c', 0.85, 0.9)];
    const text = renderCompactionBench({ rows, means: meansOf(rows, 'all'), cases: 1 });
    const band = text.split('By reduction band')[1]!;
    expect(band.indexOf('| b |')).toBeLessThan(band.indexOf('| a |'));
    expect(band).toContain('| ≥ 80.0% | c | 85.0% | 90.0% |');
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

  // Issue 9's goals for the default preset without an LLM, over every cut point (the production
  // cuts and 50% / 75% of the other long runs): a window of 10% of the prefix must shed ≥ 95% on every
  // cut and keep ≥ 75% of the references on average; a window of 20% must shed ≥ 80% and keep ≥ 95%.
  it.skipIf(!existsSync(DATA))(
    'meets the default preset goals on the real sessions',
    async () => {
      const result = await runCompactionBench({
        dataDir: DATA,
        presets: [],
        windows: [],
        shares: [0.1, 0.2],
        summarizer: createDeterministicSummarizer(),
      });
      const mean = (s: string) => result.means.find((m) => m.strategy === s && m.group === 'all')!;
      expect(result.cases).toBeGreaterThanOrEqual(15);
      const at95 = mean('default @ 10% of prefix');
      expect(at95.minReduction).toBeGreaterThanOrEqual(0.95);
      expect(at95.recall).toBeGreaterThanOrEqual(0.75);
      // …always within the input its window allows.
      expect(at95.overBudget).toBe(0);
      const at80 = mean('default @ 20% of prefix');
      expect(at80.overBudget).toBe(0);
      expect(at80.minReduction).toBeGreaterThanOrEqual(0.8);
      expect(at80.recall).toBeGreaterThanOrEqual(0.95);
      // …and it beats the production summaries on their own cuts, also at ≥ 95% reduction.
      const production = result.rows.filter((r) => r.strategy === 'production summary');
      const ours = result.rows.filter(
        (r) => r.strategy === 'default @ 10% of prefix' && production.some((p) => p.case === r.case),
      );
      const avg = (rs: typeof ours, k: 'recall' | 'reduction') =>
        rs.reduce((n, r) => n + r[k], 0) / Math.max(1, rs.length);
      expect(ours).toHaveLength(production.length);
      expect(avg(ours, 'recall')).toBeGreaterThan(avg(production, 'recall'));
      expect(Math.min(...ours.map((r) => r.reduction))).toBeGreaterThanOrEqual(0.95);
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

  it('refuses --llm when no provider is configured instead of falling back silently', async () => {
    const io = bufferIo({ cwd: synthetic(), env: {} });
    const code = await createCli(['bench', 'compaction', '--data', '.', '--llm'], io).run();
    expect(code).toBe(2);
    expect(io.stderr()).toContain('--llm: no LLM provider configured');
  });
});
