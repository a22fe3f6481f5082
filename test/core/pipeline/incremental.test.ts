import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { type RepairOptions, repairMessages } from '../../../src/core/invariants/repair.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import {
  type AffectsPredicate,
  historicalAffects,
  prefixStable,
} from '../../../src/core/pipeline/engine/incremental.ts';
import { createRepairMemo } from '../../../src/core/pipeline/engine/repair-memo.ts';
import { INITIAL_STATE, type Stage, type StageContext } from '../../../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../../../src/core/ports.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';
import { historyArb } from '../../support/arbitraries.ts';

const ctx: StageContext = {
  counter: createChars4Counter(),
  budget: createBudget(),
  clock: fixedClock(0),
  ids: sequentialIds(),
  summarizer: { name: 'none', summarize: async () => ({ summary: '' }) },
  excludeTools: new Set(),
  preset: 'test',
  state: INITIAL_STATE,
};

function counting(): Stage & { calls: number } {
  const stage = {
    name: 'probe',
    calls: 0,
    run(messages: readonly Message[]) {
      stage.calls += 1;
      return {
        messages: messages as Message[],
        report: { stage: 'probe', status: 'noop' as const, tokensBefore: 0, tokensAfter: 0 },
        journal: [],
        events: [],
      };
    },
  };
  return stage;
}

const base = [
  user('q', { id: 'u1' }),
  assistant('', [toolCall('c1', 'grep')], { id: 'a1' }),
  toolResult('c1', 'grep', 'x', { id: 't1' }),
];

/** The plainest predicate: any new tool part may give the stage work. */
const toolParts: AffectsPredicate = (input, from) =>
  input.slice(from).some((m) => m.parts.some((p) => p.type === 'tool-call' || p.type === 'tool-result'));

describe('prefixStable', () => {
  it('answers noop without running the stage when the new messages carry no tool parts', async () => {
    const probe = counting();
    const stage = prefixStable(probe, toolParts);
    await stage.run(base, ctx);
    const result = await stage.run([...base, assistant('done', [], { id: 'a2' })], ctx);
    expect([probe.calls, result.report.status]).toEqual([1, 'noop']);
  });

  it('runs the stage again when a new tool result arrives', async () => {
    const probe = counting();
    const stage = prefixStable(probe, toolParts);
    await stage.run(base, ctx);
    await stage.run(
      [
        ...base,
        assistant('', [toolCall('c2', 'grep')], { id: 'a2' }),
        toolResult('c2', 'grep', 'y', { id: 't2' }),
      ],
      ctx,
    );
    expect(probe.calls).toBe(2);
  });

  it('runs the stage again when the prefix is not the same objects', async () => {
    const probe = counting();
    const stage = prefixStable(probe, toolParts);
    await stage.run(base, ctx);
    await stage.run([{ ...base[0]! }, ...base.slice(1)], ctx);
    expect(probe.calls).toBe(2);
  });
});

describe('historicalAffects', () => {
  const long = toolResult('c1', 'bash', 'x'.repeat(30), { id: 't1' });
  const history = [user('q', { id: 'u1' }), assistant('', [toolCall('c1', 'bash')], { id: 'a1' }), long];
  const next = [...history, user('next', { id: 'u2' })];

  /** The cowagent watch after a full no-op run on `history`. */
  function watch(maxChars: number) {
    const w = historicalAffects('cowagent', maxChars, 2);
    if (typeof w === 'function') throw new Error('expected a watch');
    w.learn(history, ctx);
    return w;
  }

  it('is true when a new user message makes a result over the limit historical', () => {
    expect(watch(20).affects(next, 3)).toBe(true);
  });

  it('is false when every result that became historical is within the limit', () => {
    expect(watch(50).affects(next, 3)).toBe(false);
  });

  it('is false while the turn goes on, however long its results (nothing becomes historical)', () => {
    const w = watch(20);
    const more = [...history, assistant('', [toolCall('c2', 'bash')], { id: 'a2' })];
    const longer = [...more, toolResult('c2', 'bash', 'y'.repeat(40), { id: 't2' })];
    expect([w.affects(more, 3), w.affects(longer, 4)]).toEqual([false, false]);
    expect(w.affects([...longer, user('go on', { id: 'u3' })], 5)).toBe(true);
  });

  it('co-cli: true when a result over the limit leaves the protected tail', () => {
    const p = historicalAffects('co-cli', 20, 2);
    if (typeof p !== 'function') throw new Error('expected a predicate');
    expect(p(next, 3)).toBe(true);
    expect(historicalAffects('co-cli', 50, 2)).toBeTypeOf('function');
  });
});

describe('createRepairMemo', () => {
  it('repairs only the new messages when the clean prefix is extended', () => {
    const repair = createRepairMemo();
    expect(repair(base, {}).repairs).toEqual([]);
    const next = [
      ...base,
      assistant('', [toolCall('c2', 'grep')], { id: 'a2' }),
      user('go on', { id: 'u2' }),
    ];
    expect(repair(next, {}).repairs.map((r) => r.kind)).toEqual(['synthesized-result']);
  });

  it('gives what a full repair gives when results of the clean prefix were given other outputs (dedup, pruning, truncation, stubs)', () => {
    fc.assert(
      fc.property(
        historyArb({ maxTurns: 6 }),
        historyArb({ maxTurns: 2 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(3)), { maxLength: 8 }),
        fc.constantFrom<RepairOptions['dialect']>(undefined, 'openai', 'anthropic', 'responses', 'gemini'),
        (h, more, edits, dialect) => {
          const options = dialect ? { dialect } : { allowPendingCalls: true };
          const repair = createRepairMemo();
          repair(h.messages, options);
          const next = h.messages.slice();
          for (const [at, how] of edits) {
            const i = at % next.length;
            const m = next[i]!;
            const parts = m.parts.map((p) => {
              if (p.type !== 'tool-result') return p;
              // 0–1: another output (what the stages do); 2: another call id; 3: no longer an error.
              if (how <= 1) return { ...p, output: how === 0 ? '[Superseded]' : '' };
              return how === 2 ? { ...p, callId: `${p.callId}x` } : { ...p, isError: !p.isError };
            });
            next[i] = { ...m, parts };
          }
          next.push(...more.messages);
          const memo = repair(next, options);
          const full = repairMessages(next, options);
          expect(memo.repairs).toEqual(full.repairs);
          expect(memo.messages).toEqual(full.messages);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('renames a call id reused after the prefix when the dialect is anthropic', () => {
    const repair = createRepairMemo();
    repair(base, { dialect: 'anthropic' });
    const next = [
      ...base,
      assistant('', [toolCall('c1', 'grep')], { id: 'a2' }),
      toolResult('c1', 'grep', 'z', { id: 't2' }),
    ];
    expect(repair(next, { dialect: 'anthropic' }).repairs.map((r) => r.kind)).toEqual(['renamed-call-id']);
  });
});
