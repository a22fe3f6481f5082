/**
 * Properties of the compaction family on random histories (parallel calls, reused ids, huge outputs,
 * CJK, images, pinned messages) with summarizers that answer, fail, answer nothing or inflate:
 * no invariant the input kept is broken, pinned messages and `excludeTools` results survive verbatim,
 * the journal names every removed message, a no-op returns the input itself, the input is never mutated.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { checkInvariants } from '../../../src/core/invariants/check.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { unaccountedRemovals } from '../../../src/core/pipeline/engine/journal.ts';
import { manualCompact } from '../../../src/core/pipeline/presets/co-cli/manual-compact.ts';
import { slidingWindow } from '../../../src/core/pipeline/presets/co-cli/sliding-window.ts';
import { cowagentTrim } from '../../../src/core/pipeline/presets/cowagent/cowagent-trim.ts';
import { kosmokratorCompaction } from '../../../src/core/pipeline/presets/kosmokrator/kosmokrator-compaction.ts';
import { tiancaiCompaction } from '../../../src/core/pipeline/presets/tiancai/tiancai-compaction.ts';
import { compaction } from '../../../src/core/pipeline/stages/compaction.ts';
import { overflowRecovery } from '../../../src/core/pipeline/stages/overflow.ts';
import type { Stage } from '../../../src/core/pipeline/types.ts';
import type { Summarizer } from '../../../src/core/ports.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { deepFreeze, historyArb } from '../../support/arbitraries.ts';
import { makeCtx } from './compaction-helpers.ts';

const RUNS = Number(process.env.CTXKIT_PROPERTY_RUNS ?? 75); // 400 in `npm run test:slow`

const STAGES: Array<() => Stage> = [
  () => cowagentTrim({ maxContextTurns: 3, maxContextTokens: 3000 }),
  () => slidingWindow({ maxMessages: 8 }),
  () => kosmokratorCompaction({ keepRecentTurns: 2 }),
  () => tiancaiCompaction({ trigger: 'always', keepRecentTokens: 300 }),
  () => compaction({ keepRecentTokens: 300, triggerTokens: 2000 }),
  () => ({ name: 'manual-compact', run: (m, c) => manualCompact(m, c) }),
  ...['cowagent', 'kosmokrator', 'tiancai', 'default'].flatMap((preset) =>
    [1, 2].map((attempt) => () => overflowRecovery({ preset, attempt })),
  ),
];

const SUMMARIZERS: Array<() => Summarizer> = [
  () => createDeterministicSummarizer(),
  () => createScriptedSummarizer({ fallback: { error: 'provider down' } }),
  () => createScriptedSummarizer({ fallback: { summary: '' } }),
  () => createScriptedSummarizer({ fallback: { summary: 'x'.repeat(50_000) } }),
];

const key = (v: { rule: string; messageId: string }) => `${v.rule}@${v.messageId}`;

function excludedResults(messages: readonly Message[], exclude: ReadonlySet<string>): Message[] {
  return messages.filter((m) =>
    m.parts.some((p) => p.type === 'tool-result' && p.name !== undefined && exclude.has(p.name)),
  );
}

describe('compaction family', () => {
  it.each(
    STAGES.map(
      (make) => [String(make()).startsWith('[object') ? make().name : String(make()), make] as const,
    ),
  )(
    '%s keeps invariants, pinned and excluded messages and the journal on random histories',
    async (_name, make) => {
      await fc.assert(
        fc.asyncProperty(
          historyArb({ maxTurns: 8 }),
          fc.integer({ min: 0, max: SUMMARIZERS.length - 1 }),
          fc.boolean(),
          async (history, s, exclude) => {
            const input = deepFreeze(history.messages);
            const excludeTools = new Set(exclude ? ['memory_get', 'glob'] : []);
            const ctx = makeCtx({
              summarizer: SUMMARIZERS[s]!(),
              excludeTools,
              budget: createBudget({ contextWindow: 8000, reserveOutput: 500, autoCompactBuffer: 3000 }),
            });
            const r = await make().run(input, ctx);
            const known = new Set(checkInvariants(input).map(key));
            const fresh = checkInvariants(r.messages, { before: input }).filter((v) => !known.has(key(v)));
            expect(fresh.map(key)).toEqual([]);
            expect(unaccountedRemovals(input, r.messages, r.journal)).toEqual([]);
            const out = new Set(r.messages);
            for (const m of excludedResults(input, excludeTools)) expect(out.has(m)).toBe(true);
            for (const m of input) if (m.meta?.pinned) expect(out.has(m)).toBe(true);
            if (r.report.status === 'noop' || r.report.status === 'skipped') expect(r.messages).toBe(input);
          },
        ),
        { numRuns: RUNS, seed: 20260102 },
      );
    },
  );
});
