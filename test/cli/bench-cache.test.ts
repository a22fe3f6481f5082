import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLedger, summaryCallCost } from '../../src/cli/bench-cache/ledger.ts';
import { PRICE_TABLES } from '../../src/cli/bench-cache/prices.ts';
import {
  appendThenCompact,
  REFERENCE_SUMMARY_TOKENS,
  slidingWindow,
} from '../../src/cli/bench-cache/references.ts';
import { renderCacheBench } from '../../src/cli/bench-cache/render.ts';
import { benchBudget, cacheGoals, runCacheBench } from '../../src/cli/bench-cache/run.ts';
import { loadCacheSessions } from '../../src/cli/bench-cache/sessions.ts';
import { createCli } from '../../src/cli/cli.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { assistant, createPipeline, type Message, user } from '../../src/core/index.ts';

const DATA = resolve(import.meta.dirname, '../../../shared/data/trajectories/claude-code');
const HAVE_DATA = existsSync(DATA);
if (!HAVE_DATA) console.warn(`bench cache: ${DATA} is absent; the replay on real sessions is skipped`);

const tables = [PRICE_TABLES.anthropic, PRICE_TABLES.openai];
const send = (keys: string[], sizes: number[], compacted = false) => ({
  keys,
  sizes,
  overhead: 10,
  compacted,
});

describe('createLedger', () => {
  it('serves the previous send from the cache and counts a send that departs from it as a rewrite', () => {
    const ledger = createLedger(tables);
    ledger.add(send(['a', 'b'], [2000, 1000]));
    ledger.add(send(['a', 'b', 'c'], [2000, 1000, 500]));
    ledger.add(send(['a', 'x', 'c'], [2000, 900, 500]));
    const t = ledger.tally;
    expect(t.rewrites).toBe(1);
    // Anthropic: the second send reads 3,010 and writes 500; the third reads 2,010 and writes 1,400.
    expect(t.cached.anthropic).toBe(3010 + 2010);
    const units = 3010 * 1.25 + (3010 * 0.1 + 500 * 1.25) + (2010 * 0.1 + 1400 * 1.25);
    expect(t.cost.anthropic).toBeCloseTo(units * 3e-6, 9);
    // OpenAI: whole 128-token steps.
    expect(t.cached.openai).toBe(2944 + 1920);
  });

  it('counts a departure in a step that compacted as the compaction, not a rewrite', () => {
    const ledger = createLedger(tables);
    ledger.add(send(['a', 'b'], [1000, 1000]));
    ledger.add(send(['s', 'b'], [200, 1000], true));
    expect(ledger.tally).toMatchObject({ rewrites: 0, compactions: 1 });
  });
});

describe('summaryCallCost', () => {
  it('reads the cached prefix, writes the rest and bills the answer at the output price when the call carries cache hints', () => {
    const call = { cached: 20_000, fresh: 1_000, output: 2_000, cacheable: true };
    // Anthropic: 20,000 read at 0.1, 1,000 written at 1.25, 2,000 out at $15/M.
    expect(summaryCallCost(call, PRICE_TABLES.anthropic)).toBeCloseTo(
      (20_000 * 0.1 + 1_000 * 1.25) * 3e-6 + 2_000 * 15e-6,
      9,
    );
    // A new prompt without hints: plain input.
    expect(summaryCallCost({ ...call, cacheable: false }, PRICE_TABLES.anthropic)).toBeCloseTo(
      21_000 * 3e-6 + 2_000 * 15e-6,
      9,
    );
  });
});

describe('appendThenCompact', () => {
  const m = (i: number): Message => (i % 2 ? assistant(`a${i}`) : user(`u${i}`));

  it('replaces all but the newest 20% of usable input with a 2,000-token summary when the send would cross the level', () => {
    const sizing = { overhead: 10, key: (x: Message) => x.id, tokens: () => 300 };
    const manage = appendThenCompact({ usable: 5000, compactAt: 4000 }, sizing);
    const history = Array.from({ length: 15 }, (_, i) => m(i));
    expect(manage(history.slice(0, 13)).compacted).toBe(false);
    expect(manage(history.slice(0, 14))).toMatchObject({
      compacted: true,
      sizes: [REFERENCE_SUMMARY_TOKENS, 300, 300, 300],
    });
    expect(manage(history)).toMatchObject({
      compacted: false,
      sizes: [REFERENCE_SUMMARY_TOKENS, 300, 300, 300, 300],
    });
  });

  it('asks for its summary on the history as it stands: the previous send cached, the new message and the instruction not', () => {
    const sizing = { overhead: 10, key: (x: Message) => x.id, tokens: () => 300 };
    const manage = appendThenCompact({ usable: 5000, compactAt: 4000, instruction: 50 }, sizing);
    const history = Array.from({ length: 14 }, (_, i) => m(i));
    expect(manage(history.slice(0, 13)).summaryCall).toBeUndefined();
    expect(manage(history).summaryCall).toEqual({
      cached: 10 + 13 * 300,
      fresh: 300 + 50,
      output: REFERENCE_SUMMARY_TOKENS,
      cacheable: true,
    });
  });
});

describe('slidingWindow', () => {
  it('sends the newest messages that fit usable input', () => {
    const manage = slidingWindow(
      { usable: 350, compactAt: 300 },
      { overhead: 10, key: (x) => x.id, tokens: () => 100 },
    );
    const history = Array.from({ length: 6 }, (_, i) => user(`u${i}`));
    expect(manage(history).keys).toEqual(history.slice(3).map((x) => x.id));
  });
});

describe.skipIf(!HAVE_DATA)('runCacheBench on a real Claude Code session', () => {
  it('costs no more than append-then-compact, with each price table, and rewrites the history at most 29 times per 1,000 steps', async () => {
    const sessions = loadCacheSessions(DATA, '8463c716').filter((s) => s.name === '8463c716');
    expect(sessions).toHaveLength(1);
    const rows = await runCacheBench({
      sessions,
      windows: [32_000],
      tables: ['anthropic', 'openai', 'gpt-5.6'],
    });
    const [row] = rows;
    expect(row!.steps).toBeGreaterThan(100);
    for (const id of ['anthropic', 'openai'] as const) {
      expect(row!.ctxkit[id]!.cost[id]!).toBeLessThanOrEqual(row!.append.cost[id]!);
      // The naive window pays for breaking the cache on almost every step.
      expect(row!.slide.cost[id]!).toBeGreaterThan(2 * row!.append.cost[id]!);
    }
    expect(row!.none).toBeUndefined();
    expect(cacheGoals(rows).rewritesPer1000).toBeLessThanOrEqual(29);
    // With a paid model, a summary asked on the cached prefix costs less than one on a transcript,
    // and every compaction pays one call; the local summary pays none.
    for (const id of ['anthropic', 'openai'] as const) {
      const { transcript, cached } = row!.paid;
      expect(cached[id]!.summaryCalls).toBe(cached[id]!.compactions);
      expect(cached[id]!.summaries[id]!).toBeLessThan(transcript[id]!.summaries[id]!);
      expect(row!.ctxkit[id]!.summaries[id]!).toBe(0);
      expect(row!.append.summaryCalls).toBe(row!.append.compactions);
    }
    // Told the model is GPT-5.6, ctxkit prices its 1.25× writes, and the gate holds back the one rewrite
    // it lets through at GPT-5's 1× (a GPT-5.6 send is also priced in single tokens, not 128-token steps).
    expect(row!.ctxkit.openai!.rewrites).toBe(1);
    expect(row!.ctxkit['gpt-5.6']!.rewrites).toBe(0);
    expect(row!.ctxkit['gpt-5.6']!.cost['gpt-5.6']!).toBeLessThanOrEqual(row!.append.cost['gpt-5.6']!);
  });

  it('costs no more than append-then-compact at 128K when large outputs arrive (cut at 10 KiB on arrival)', async () => {
    // 258c7280 reads files of up to 30,000 characters: with a twentieth of usable input let in per
    // output (23.5 KB) it cost 1.055× / 1.062× the reference.
    const sessions = loadCacheSessions(DATA, '258c7280').filter((s) => s.name === '258c7280');
    expect(sessions).toHaveLength(1);
    const [row] = await runCacheBench({ sessions, windows: [128_000], tables: ['anthropic', 'openai'] });
    for (const id of ['anthropic', 'openai'] as const)
      expect(row!.ctxkit[id]!.cost[id]!).toBeLessThanOrEqual(row!.append.cost[id]!);
  });
});

describe.skipIf(!HAVE_DATA)('runCacheBench with --level', () => {
  it("compacts ctxkit earlier, and no other manager, when the level is lower than the budget's", async () => {
    const sessions = loadCacheSessions(DATA, '258c7280').filter((s) => s.name === '258c7280');
    const options = { sessions, windows: [32_000], tables: ['anthropic'] as const };
    const [base] = await runCacheBench(options);
    const [early] = await runCacheBench({ ...options, level: 0.75 });
    expect(base!.ctxkitLevel).toBe(base!.compactAt);
    expect(early!.ctxkitLevel).toBe(Math.round(0.75 * early!.usable));
    expect(early!.compactAt).toBe(base!.compactAt);
    expect(early!.append).toEqual(base!.append);
    expect(early!.ctxkit.anthropic!.compactions).toBeGreaterThan(base!.ctxkit.anthropic!.compactions);
    // On this session, compacting at 75% of usable input is the cheaper side of the trade.
    expect(early!.ctxkit.anthropic!.cost.anthropic!).toBeLessThan(base!.ctxkit.anthropic!.cost.anthropic!);
    expect(renderCacheBench([early!], ['anthropic'])).toContain('ctxkit compacts at 22,080 (75%) @32K');
  });
});

describe('benchBudget', () => {
  it('moves the auto-compact level to the share asked, with the warning level at or below it', () => {
    for (const [window, level] of [
      [32_000, 0.75],
      [128_000, 0.5],
      [200_000, 1],
    ] as const) {
      const b = createPipeline({ budget: benchBudget(window, level) }).budget;
      expect(b.autoCompact).toBe(Math.round(level * b.usable));
      expect(b.warning).toBeLessThanOrEqual(b.autoCompact);
      expect(b.blocking).toBeGreaterThanOrEqual(b.autoCompact);
    }
    expect(benchBudget(32_000)).toEqual({ contextWindow: 32_000 });
  });
});

describe('ctxcheck bench cache', () => {
  it.each(['0.2', '1.5', 'abc', '0.8x', ''])(
    'exits 2 with one line naming --level when it is %j',
    async (level) => {
      const io = bufferIo();
      const code = await createCli(['bench', 'cache', '--data', tmpdir(), '--level', level], io).run();
      expect(code).toBe(2);
      expect(io.stderr().trim()).toBe(
        `ctxcheck: --level: expected a share of usable input from 0.4 to 1, got '${level}'`,
      );
    },
  );

  it('exits 2 with one line naming the option when a window is not a number', async () => {
    const io = bufferIo();
    const code = await createCli(['bench', 'cache', '--data', tmpdir(), '--windows', '32k'], io).run();
    expect(code).toBe(2);
    expect(io.stderr().trim()).toMatch(/--windows: invalid value '32k'/);
  });

  it('exits 2 naming the file when a trajectory is not valid JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-cache-'));
    writeFileSync(join(dir, 'a.json'), '{not json');
    const io = bufferIo({ cwd: dir });
    const code = await createCli(['bench', 'cache', '--data', '.'], io).run();
    expect(code).toBe(2);
    expect(io.stderr()).toContain('a.json: not valid JSON');
  });
});
