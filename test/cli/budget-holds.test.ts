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

// The session where a system prompt took sends over usable: the estimate counted an archived result as
// nothing while the send carries its stub (2 sends over usable at level `warn`, +856 tokens at most on
// main, before). budget-holds.slow.test.ts checks every session so.
const WITH_SYSTEM = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const withSystem = existsSync(DATA)
  ? loadTrajectories(DATA, ['claude-code']).find((t) => t.name === WITH_SYSTEM)
  : undefined;

describe.skipIf(!withSystem)(
  `the default preset on Claude Code session ${WITH_SYSTEM.slice(0, 8)} with a system prompt`,
  () => {
    it('sends nothing above usable when a system prompt comes with the whole history every call (32K)', async () => {
      // About 1,660 o200k tokens of instructions.
      const system = 'You are a coding agent working in a repository. '.repeat(166);
      const s = summarize(await replayBudget(withSystem!, 32_000, 'whole', system));
      expect(s.overUsable).toBe(0);
      expect(s.newestLost).toBe(0);
    }, 120_000);
  },
);
