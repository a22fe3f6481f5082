/**
 * The representative in `npm test` of budget-holds.slow.test.ts (every Claude Code session, both loops,
 * 32K and 128K): one long real session with its recorded `usage`, Claude Code's own summary and
 * duplicate tool ids left in, replayed step by step through the `default` preset in both loops at 32K,
 * each send counted exactly (o200k) against usable input.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTrajectories, replayBudget, summarize } from '../../bench/budget-replay.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/trajectories');
const SESSION = '258c7280-ae70-4798-800f-63464d01a85d';
const session = existsSync(DATA)
  ? loadTrajectories(DATA, ['claude-code']).find((t) => t.name === SESSION)
  : undefined;
if (!session)
  console.warn(
    `budget-holds: skipped, no trajectory ${SESSION} under ${DATA} (see ../shared/data/README.md)`,
  );

describe.skipIf(!session)(
  `the default preset on Claude Code session ${SESSION.slice(0, 8)} with its usage`,
  () => {
    it('sends nothing above usable and keeps the newest step when the working context is fed back (32K)', async () => {
      const s = summarize(await replayBudget(session!, 32_000, 'working'));
      expect(s.steps).toBeGreaterThan(100);
      expect(s.overUsable).toBe(0);
      expect(s.compactions).toBeGreaterThan(0);
      expect(s.newestLost).toBe(0);
    });

    it('sends nothing above usable and keeps the newest step when the whole history comes every call (32K)', async () => {
      const s = summarize(await replayBudget(session!, 32_000, 'whole'));
      expect(s.overUsable).toBe(0);
      expect(s.newestLost).toBe(0);
    });
  },
);
