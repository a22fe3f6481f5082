/**
 * ctxkit's first promise on real histories as they come: every Claude Code session in
 * ../shared/data/trajectories, its recorded provider `usage`, Claude Code's own summaries and
 * duplicate tool ids left in, replayed step by step through the `default` preset in the README loop
 * (working context fed back) and in the loop of per-call framework hooks (the whole raw history every
 * call, converted anew). Each send is counted exactly (o200k) against usable input.
 * Same replay as `npm run bench:budget` (bench/budget-replay.ts). Runs in `npm run test:slow`;
 * budget-holds.test.ts is its representative in `npm test` (one long session).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BudgetStep, loadTrajectories, replayBudget, summarize } from '../../bench/budget-replay.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/trajectories');
const present = existsSync(DATA);
if (!present)
  console.warn(`budget-holds: skipped, no trajectories at ${DATA} (see ../shared/data/README.md)`);

async function replayAll(window: number, loop: 'working' | 'whole', system?: string): Promise<BudgetStep[]> {
  const steps: BudgetStep[] = [];
  for (const t of loadTrajectories(DATA, ['claude-code'])) {
    steps.push(...(await replayBudget(t, window, loop, system)));
    // Let the test worker answer vitest's RPC between sessions: on a loaded machine a long
    // synchronous stretch makes vitest report "Timeout calling onTaskUpdate".
    await new Promise((resolve) => setImmediate(resolve));
  }
  return steps;
}

describe.skipIf(!present)('the default preset on real Claude Code sessions with their usage', () => {
  it('sends nothing above usable and keeps the newest step when the working context is fed back (32K)', async () => {
    const s = summarize(await replayAll(32_000, 'working'));
    expect(s.steps).toBeGreaterThan(500);
    expect(s.overUsable).toBe(0);
    expect(s.compactions).toBeGreaterThan(5);
    expect(s.newestLost).toBe(0);
    // Right after a compaction the context sits near half of usable, not at a few percent.
    expect(s.fillP50).toBeGreaterThanOrEqual(0.3);
    expect(s.fillP50).toBeLessThanOrEqual(0.7);
  });

  it('sends nothing above usable and keeps the newest step when the whole history comes every call (32K)', async () => {
    const s = summarize(await replayAll(32_000, 'whole'));
    expect(s.overUsable).toBe(0);
    expect(s.newestLost).toBe(0);
  }, 180_000); // ~18 s on an idle 2-core machine; the whole history is converted and reduced on every call

  it('sends nothing above usable when a system prompt comes with the whole history every call (32K)', async () => {
    // About 1,660 o200k tokens of instructions. The estimate counted an archived result as nothing
    // while the send carries its stub: 4 sends went over usable (worst +856 tokens) at level `warn`.
    const system = 'You are a coding agent working in a repository. '.repeat(166);
    const s = summarize(await replayAll(32_000, 'whole', system));
    expect(s.overUsable).toBe(0);
    expect(s.newestLost).toBe(0);
  }, 180_000);

  it('sends nothing above usable at 128K, whose recorded usage would under-state it', async () => {
    const s = summarize(await replayAll(128_000, 'working'));
    expect(s.overUsable).toBe(0);
  });
});
