/**
 * `ctxcheck bench cache` in full (`npm run bench:cache`): every Claude Code session of
 * ../shared/data/trajectories/claude-code at 32K and 128K, with the Anthropic and OpenAI price tables,
 * ctxkit's incremental context beside append-then-compact on the same steps. Runs in
 * `npm run test:slow`; its representative in `npm test` is bench-cache.test.ts (one long session at
 * 32K, both tables).
 *
 * Issue #41 asks for ctxkit ≤ 1.0× append-then-compact on every row. The rows that are not, all at
 * 32K (1.003–1.025× on the long sessions, 1.18–1.20× on one sub-agent whose reference compacts to its
 * summary alone three steps before the end), pay for the 30 % floor of the post-compaction fill that
 * the same issue sets against the reference's 25–27 % (docs/cache.md, "Where the rest of the gap is").
 * The bound here is what ctxkit measures now, so that a change that costs more fails; it is not the
 * issue's goal.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheGoals, runCacheBench } from '../../src/cli/bench-cache/run.ts';
import { loadCacheSessions } from '../../src/cli/bench-cache/sessions.ts';

const DATA = resolve(import.meta.dirname, '../../../shared/data/trajectories/claude-code');
const HAVE_DATA = existsSync(DATA);
if (!HAVE_DATA) console.warn(`bench cache: ${DATA} is absent; the full replay is skipped`);

/** Sessions long enough to compact at 32K. */
const LONG = 100;

describe.skipIf(!HAVE_DATA)('runCacheBench on every Claude Code session', () => {
  it('keeps the history append-only outside compactions and costs at most 1.03× append-then-compact on every long session', async () => {
    const sessions = loadCacheSessions(DATA);
    expect(sessions.length).toBeGreaterThan(10);
    const rows = await runCacheBench({
      sessions,
      windows: [32_000, 128_000],
      tables: ['anthropic', 'openai'],
    });
    const goals = cacheGoals(rows);
    expect(goals.rewritesPer1000).toBeLessThanOrEqual(29);
    for (const row of rows)
      for (const id of ['anthropic', 'openai'] as const) {
        const ratio = row.ctxkit[id]!.cost[id]! / row.append.cost[id]!;
        const where = `${row.session} @${row.window / 1000}K, ${id}`;
        expect(ratio, where).toBeLessThanOrEqual(row.steps >= LONG ? 1.03 : 1.2);
        // A sliding window breaks the cache on almost every step once the session no longer fits.
        if (row.steps >= LONG && row.window === 32_000)
          expect(row.slide.cost[id]!, where).toBeGreaterThan(2 * row.append.cost[id]!);
      }
  });
});
