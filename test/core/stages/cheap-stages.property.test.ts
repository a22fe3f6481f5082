/**
 * Properties of the cheap stages over generated histories (parallel calls, reused ids, huge, CJK and
 * JSON outputs, pinned messages): the input is never mutated, `noop` means identity, invariants that
 * held before still hold in what the model is sent, pinned messages survive untouched, every changed
 * or removed message is journalled, and the idempotent stages change nothing on a second run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryBlobStore } from '../../../src/core/blobs/memory-blob-store.ts';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { checkInvariants } from '../../../src/core/invariants/check.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { toModelView } from '../../../src/core/messages/visibility.ts';
import { createToolArchiving } from '../../../src/core/pipeline/stages/archiving.ts';
import { createDedup } from '../../../src/core/pipeline/stages/dedup.ts';
import { createEmergencyTrim } from '../../../src/core/pipeline/stages/emergency-trim.ts';
import { createHistoricalTruncation } from '../../../src/core/pipeline/stages/historical-truncation.ts';
import { createOutputTruncation } from '../../../src/core/pipeline/stages/output-truncation.ts';
import { createPruning } from '../../../src/core/pipeline/stages/pruning.ts';
import type { Stage, StageResult } from '../../../src/core/pipeline/types.ts';
import { deepFreeze, historyArb } from '../../support/arbitraries.ts';
import { makeCtx } from './cheap-helpers.ts';

interface Case {
  stage: Stage;
  idempotent: boolean;
  keepsPairing: boolean;
}

const cases: Record<string, () => Case> = {
  'output-truncation default': () => ({
    stage: createOutputTruncation({ scope: 'all', maxLines: 50, maxBytes: 2000 }),
    idempotent: true,
    keepsPairing: true,
  }),
  'output-truncation kosmokrator': () => ({
    stage: createOutputTruncation({ mode: 'kosmokrator', scope: 'all', maxLines: 50, maxBytes: 2000 }),
    idempotent: true,
    keepsPairing: true,
  }),
  'output-truncation tiancai': () => ({
    stage: createOutputTruncation({
      mode: 'tiancai',
      scope: 'all',
      maxLines: 50,
      maxBytes: 2000,
      spillThreshold: 3000,
    }),
    idempotent: true,
    keepsPairing: true,
  }),
  'output-truncation cowagent': () => ({
    stage: createOutputTruncation({
      mode: 'cowagent',
      scope: 'all',
      maxLines: 50,
      maxBytes: 2000,
      maxChars: 1500,
    }),
    idempotent: true,
    keepsPairing: true,
  }),
  'historical cowagent': () => ({
    stage: createHistoricalTruncation({ maxChars: 300 }),
    idempotent: true,
    keepsPairing: true,
  }),
  'historical co-cli': () => ({
    stage: createHistoricalTruncation({ mode: 'co-cli', maxChars: 100 }),
    idempotent: true,
    keepsPairing: true,
  }),
  'dedup default': () => ({ stage: createDedup(), idempotent: true, keepsPairing: true }),
  'dedup kosmokrator': () => ({
    stage: createDedup({ mode: 'kosmokrator' }),
    idempotent: true,
    keepsPairing: true,
  }),
  'pruning default': () => ({
    stage: createPruning({ protectTokens: 100, minSavings: 50 }),
    idempotent: false,
    keepsPairing: true,
  }),
  'pruning kosmokrator': () => ({
    stage: createPruning({ mode: 'kosmokrator', protectTokens: 100, minSavings: 50 }),
    idempotent: false,
    keepsPairing: true,
  }),
  'archiving sync': () => ({
    stage: createToolArchiving({ strategy: 'heuristic', cutoff: 2 }),
    idempotent: true,
    keepsPairing: true,
  }),
  'archiving in-place': () => ({
    stage: createToolArchiving({ strategy: 'heuristic', cutoff: 2, placement: 'in-place' }),
    idempotent: true,
    keepsPairing: true,
  }),
  'archiving batch': () => ({
    stage: createToolArchiving({ strategy: 'heuristic', variant: 'batch', cutoff: 2 }),
    idempotent: false,
    keepsPairing: true,
  }),
  'emergency trim': () => ({
    stage: createEmergencyTrim({ trigger: 'target', target: 500, maxTurns: 3 }),
    idempotent: false,
    keepsPairing: true,
  }),
};

const ctx = () =>
  makeCtx({
    blobs: createMemoryBlobStore(),
    excludeTools: new Set(['memory_get']),
    budget: createBudget({ contextWindow: 4000, reserveOutput: 0 }),
  });

function check(input: readonly Message[], r: StageResult, c: Case): void {
  if (r.report.status === 'noop') expect(r.messages).toBe(input);
  if (r.messages === input) expect(r.journal).toEqual([]);
  const before = new Set(checkInvariants(toModelView(input)).map((v) => `${v.rule}:${v.messageId}`));
  if (c.keepsPairing) {
    const after = checkInvariants(toModelView(r.messages)).filter(
      (v) => !before.has(`${v.rule}:${v.messageId}`),
    );
    expect(after).toEqual([]);
  }
  const outById = new Map(r.messages.map((m) => [m.id, m]));
  const journalled = new Set(r.journal.map((j) => j.messageId));
  for (const m of input) {
    const now = outById.get(m.id);
    if (m.meta?.pinned === true) expect(now).toBe(m);
    if (now !== m) expect(journalled.has(m.id)).toBe(true);
    const part = m.parts[0];
    if (part?.type === 'tool-result' && part.name === 'memory_get')
      expect(now === m || now === undefined).toBe(true);
  }
}

describe('cheap stages (properties)', () => {
  for (const [name, make] of Object.entries(cases)) {
    it(`keep their contract over generated histories: ${name}`, async () => {
      let appliedRuns = 0;
      await fc.assert(
        fc.asyncProperty(historyArb({ maxTurns: 6 }), async (h) => {
          const c = make();
          const input = deepFreeze(h.messages);
          const r = await c.stage.run(input, ctx());
          check(input, r, c);
          if (r.report.status === 'applied') appliedRuns++;
          if (c.idempotent) {
            const again = await c.stage.run(deepFreeze(r.messages), ctx());
            expect(again.messages).toBe(r.messages);
          }
        }),
        { numRuns: 150, seed: 42 },
      );
      expect(appliedRuns).toBeGreaterThan(10); // the property is not vacuous
    });
  }
});
