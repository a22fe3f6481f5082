/**
 * The incremental context over random histories and random ways of handing them over: growing one or
 * more messages at a time, rebuilt objects, rewinds, edits, and the caller keeping the reduced view it
 * was sent — every preset × every dialect, small windows so that compaction and trimming fire. Every
 * send passes the dialect's invariants and holds each message id once; at a window where nothing is
 * reduced, what the context sends is what a fresh context sends for the same history (nothing fed
 * twice, nothing skipped).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkInvariants } from '../../../src/core/invariants/check.ts';
import type { Dialect, Message } from '../../../src/core/messages/types.ts';
import { createContext } from '../../../src/core/pipeline/engine/context.ts';
import { PRESET_NAMES, type PresetName } from '../../../src/core/pipeline/presets/presets.ts';
import { fixedClock, sequentialIds } from '../../../src/core/ports.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';
import { historyArb } from '../../support/arbitraries.ts';

const RUNS = Number(process.env.CTXKIT_PROPERTY_RUNS ?? 400) / 10;
const SEED = 20261125;
const DIALECTS: Dialect[] = ['openai', 'anthropic', 'responses', 'gemini'];

type Op =
  | { kind: 'grow'; by: number }
  | { kind: 'rebuild' }
  | { kind: 'rewind'; to: number }
  | { kind: 'edit'; at: number }
  | { kind: 'keep-send'; by: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('grow' as const), by: fc.integer({ min: 1, max: 4 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rebuild' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rewind' as const), to: fc.double({ min: 0, max: 1 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.double({ min: 0, max: 1 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('keep-send' as const), by: fc.integer({ min: 0, max: 3 }) }),
  },
);

const options = (preset: PresetName, contextWindow: number) => ({
  preset,
  // Buffers in proportion (kosmokrator takes them as given; its 3,000-token blocking buffer alone
  // would put a 2,500-token window at block level from the first token).
  budget: {
    contextWindow,
    reserveOutput: Math.round(contextWindow * 0.08),
    warningBuffer: Math.round(contextWindow * 0.12),
    autoCompactBuffer: Math.round(contextWindow * 0.06),
    blockingBuffer: Math.round(contextWindow * 0.015),
  },
  counter: createChars4Counter(),
  clock: fixedClock('2026-11-25T00:00:00Z'),
  ids: sequentialIds(),
  summarizer: createScriptedSummarizer({
    fallback: { summary: '## Goal\nFix src/a.ts.\n## Progress\nTests pass.' },
  }),
});

/** Replays `ops` over `full`; `check` sees each call's history and run. */
async function replay(
  preset: PresetName,
  dialect: Dialect,
  window: number,
  full: readonly Message[],
  ops: readonly Op[],
  /**
   * `persisted`: the history holds (or held) a send the caller kept. From then on a fresh context is
   * not the same input: the kept send carries ctxkit's own call-id renames and placeholder results,
   * which a later real result (under the call's original id) answers only for the context that made them.
   */
  check: (history: readonly Message[], send: readonly Message[], persisted: boolean) => Promise<void>,
): Promise<void> {
  const ctx = createContext({ ...options(preset, window), dialect });
  // `raw` is the caller's history; `next` the position in `full` of its next new message.
  let raw: Message[] = full.slice(0, 1);
  let next = 1;
  let edits = 0;
  let run = await ctx.prepare(raw);
  await check(raw, run.send, false);
  let persisted = false;
  for (const op of ops) {
    let history: Message[];
    switch (op.kind) {
      case 'grow':
        raw = raw.concat(full.slice(next, next + op.by));
        next = Math.min(full.length, next + op.by);
        history = raw;
        break;
      case 'rebuild':
        history = structuredClone(raw);
        break;
      case 'rewind':
        raw = raw.slice(0, Math.max(1, Math.floor(raw.length * op.to)));
        history = raw;
        break;
      case 'edit': {
        const at = Math.min(raw.length - 1, Math.floor(raw.length * op.at));
        const m = raw[at]!;
        if (m.role !== 'user' || !m.parts.every((p) => p.type === 'text')) continue;
        raw = raw.slice();
        raw[at] = { ...m, id: `edit-${edits++}`, parts: [{ type: 'text', text: `edited: ${at}` }] };
        history = raw;
        break;
      }
      case 'keep-send':
        // The caller keeps what it was sent; its raw history is that from now on.
        raw = run.send.concat(full.slice(next, next + op.by));
        next = Math.min(full.length, next + op.by);
        history = raw;
        persisted = true;
        break;
    }
    run = await ctx.prepare(history);
    await check(history, run.send, persisted);
  }
}

const ids = (send: readonly Message[]) => send.map((m) => m.id);

describe('createContext (properties)', () => {
  for (const preset of PRESET_NAMES)
    for (const dialect of DIALECTS)
      it(`keeps every send valid whatever the caller hands over: ${preset} × ${dialect}`, async () => {
        await fc.assert(
          fc.asyncProperty(
            historyArb({ maxTurns: 10 }),
            fc.array(opArb, { minLength: 1, maxLength: 14 }),
            fc.constantFrom(2_500, 6_000),
            async ({ messages }, ops, window) => {
              await replay(preset, dialect, window, messages, ops, async (_, send) => {
                expect(checkInvariants(send, { dialect })).toEqual([]);
                expect(new Set(ids(send)).size).toBe(send.length);
              });
            },
          ),
          { numRuns: RUNS, seed: SEED },
        );
      }, 60_000);

  it('sends what a fresh context sends for the same history when nothing is reduced', async () => {
    await fc.assert(
      fc.asyncProperty(
        historyArb({ maxTurns: 8, huge: false }),
        fc.array(opArb, { minLength: 1, maxLength: 14 }),
        fc.constantFrom<Dialect>(...DIALECTS),
        async ({ messages }, ops, dialect) => {
          await replay('default', dialect, 10_000_000, messages, ops, async (history, send, persisted) => {
            if (persisted) return;
            const fresh = await createContext({ ...options('default', 10_000_000), dialect }).prepare(
              history,
            );
            expect(ids(send)).toEqual(ids(fresh.send));
          });
        },
      ),
      { numRuns: RUNS * 5, seed: SEED },
    );
    // Two contexts per step over hundreds of generated sequences: seconds, more on a loaded machine.
  }, 120_000);
});
