import { describe, expect, it } from 'vitest';
import {
  EMPTY_SESSION_STATE,
  type Message,
  type SessionState,
  sameMessage,
  sameSessionState,
  toolResult,
  user,
} from '../../../src/core/index.ts';

/** A message whose serialisations are counted (its `toJSON` runs once per `JSON.stringify`). */
function counted(message: Message): { message: Message; calls: () => number } {
  let n = 0;
  const copy = { ...message };
  Object.defineProperty(copy, 'toJSON', {
    enumerable: false,
    value: () => {
      n++;
      return message;
    },
  });
  return { message: copy, calls: () => n };
}

const state = (over: Partial<SessionState>): SessionState => ({ ...EMPTY_SESSION_STATE, ...over });

describe('sameMessage', () => {
  it('is true for copies with the same content and false when a part differs', () => {
    const a = toolResult('c1', 'grep', 'x'.repeat(50), { id: 't1' });
    expect(sameMessage(a, { ...a })).toBe(true);
    expect(sameMessage(a, toolResult('c1', 'grep', 'y'.repeat(50), { id: 't1' }))).toBe(false);
    expect(sameMessage(a, { ...a, id: 't2' })).toBe(false);
  });

  it('serialises each message once when the same pair is compared on later turns', () => {
    const row = counted(toolResult('c1', 'read', 'z'.repeat(40_000), { id: 't1' }));
    const cut = counted(toolResult('c1', 'read', 'z'.repeat(20_000), { id: 't1' }));
    for (let turn = 0; turn < 5; turn++) expect(sameMessage(row.message, cut.message)).toBe(false);
    expect(row.calls()).toBe(1);
    expect(cut.calls()).toBe(1);
  });
});

describe('sameSessionState', () => {
  const m = user('hello', { id: 'u1' });
  const working = { throughSeq: 3, items: [{ seq: 1 }, { message: m }] };

  it('agrees with JSON equality when the working context, pipeline state or memory block change', () => {
    const base = state({ working });
    const cases: SessionState[] = [
      state({ working: { throughSeq: 3, items: [{ seq: 1 }, { message: { ...m } }] } }),
      state({ working: { throughSeq: 4, items: [{ seq: 1 }, { message: m }] } }),
      state({ working: { throughSeq: 3, items: [{ seq: 2 }, { message: m }] } }),
      state({ working: { throughSeq: 3, items: [{ seq: 1 }, { seq: 2 }] } }),
      state({ working: { throughSeq: 3, items: [{ seq: 1 }, { message: user('hi', { id: 'u1' }) }] } }),
      state({ working: null }),
      state({ working, pipeline: { ...EMPTY_SESSION_STATE.pipeline, overflowAttempts: 1 } }),
      state({ working, memoryBlock: { text: 'm', memoryIds: [], recallCount: 0, tokens: 1, computedAt: 0 } }),
    ];
    for (const other of cases) {
      expect(sameSessionState(base, other)).toBe(JSON.stringify(base) === JSON.stringify(other));
    }
  });

  it('is true without serialising the working messages when the run kept the same objects', () => {
    const big = counted(toolResult('c1', 'read', 'z'.repeat(40_000), { id: 't1' }));
    const w = { throughSeq: 2, items: [{ seq: 1 }, { message: big.message }] };
    const before = state({ working: w });
    const after = state({ working: { throughSeq: 2, items: [{ seq: 1 }, { message: big.message }] } });
    expect(sameSessionState(before, after)).toBe(true);
    expect(big.calls()).toBe(0);
  });
});
