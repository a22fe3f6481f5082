import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/core/budget/budget.ts';
import { assistant, system, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createEmergencyTrim, trimOldest } from '../../../src/core/pipeline/stages/emergency-trim.ts';
import { frozen, makeCtx } from './cheap-helpers.ts';

const ids = (r: { messages: Message[] } | false) => (r === false ? false : r.messages.map((m) => m.id));
const q = (text: string, meta?: Message['meta'], id = text) => user(text, { id, ...(meta ? { meta } : {}) });
const a = (id: string) => assistant(id, [], { id });

describe('trimOldest', () => {
  it('removes the whole first turn: [q1,a1,q2] → [q2]', () => {
    expect(ids(trimOldest(frozen([q('q1'), a('a1'), q('q2')])))).toEqual(['q2']);
  });

  it('never removes the last message: [q1,a1,a2,a3] → [a3]', () => {
    expect(ids(trimOldest(frozen([q('q1'), a('a1'), a('a2'), a('a3')])))).toEqual(['a3']);
  });

  it('returns false with fewer than 3 messages or when only the last message is not system', () => {
    expect(trimOldest(frozen([q('q1'), a('a1')]))).toBe(false);
    expect(trimOldest(frozen([system('s', { id: 's1' }), system('s', { id: 's2' }), q('q1')]))).toBe(false);
  });

  it('keeps leading system messages', () => {
    expect(ids(trimOldest(frozen([system('s', { id: 's' }), q('q1'), a('a1'), q('q2')])))).toEqual([
      's',
      'q2',
    ]);
  });

  it('reports the removed messages', () => {
    const r = trimOldest(frozen([q('q1'), a('a1'), q('q2'), a('a2')]));
    expect(r === false ? [] : r.removed.map((m) => m.id)).toEqual(['q1', 'a1']);
  });

  it('keeps a pinned tool result in place together with its call', () => {
    const input = frozen([
      q('q1'),
      assistant('', [toolCall('c1', 'bash')], { id: 'a1' }),
      toolResult('c1', 'bash', 'out', { id: 't1', meta: { pinned: true } }),
      a('a2'),
      q('q2'),
    ]);
    expect(ids(trimOldest(input, { keep: (m) => m.meta?.pinned === true }))).toEqual(['a1', 't1', 'q2']);
  });

  it('pairs by position when a call id is reused in the turn', () => {
    const input = frozen([
      q('q1'),
      assistant('', [toolCall('call_0', 'bash')], { id: 'a1' }),
      toolResult('call_0', 'bash', 'first', { id: 't1', meta: { pinned: true } }),
      assistant('', [toolCall('call_0', 'bash')], { id: 'a2' }),
      toolResult('call_0', 'bash', 'second', { id: 't2' }),
      a('a3'),
      q('q2'),
    ]);
    expect(ids(trimOldest(input, { keep: (m) => m.meta?.pinned === true }))).toEqual(['a1', 't1', 'q2']);
  });

  it('orphans a final tool result like 002 unless keepTailPairs is set', () => {
    const input = frozen([
      q('q1'),
      assistant('', [toolCall('c1', 'bash')], { id: 'a1' }),
      toolResult('c1', 'bash', 'o', { id: 't1' }),
    ]);
    expect(ids(trimOldest(input))).toEqual(['t1']);
    expect(ids(trimOldest(input, { keepTailPairs: true }))).toEqual(['a1', 't1']);
  });

  it('keeps results whose call sits in a kept message before the turn', () => {
    const input = frozen([
      assistant('', [toolCall('c1', 'bash')], { id: 'a0', meta: { pinned: true } }),
      toolResult('c1', 'bash', 'out', { id: 't0' }),
      a('a1'),
      q('q2'),
    ]);
    expect(ids(trimOldest(input, { keep: (m) => m.meta?.pinned === true }))).toEqual(['a0', 't0', 'q2']);
  });

  it('skips a pinned first message and trims what follows it', () => {
    const input = frozen([q('q1', { pinned: true }), a('a1'), q('q2'), a('a2')]);
    expect(ids(trimOldest(input, { keep: (m) => m.meta?.pinned === true }))).toEqual(['q1', 'q2', 'a2']);
  });
});

describe('createEmergencyTrim', () => {
  // kosmokrator counter: 320 chars → 100 tokens + 10 per message; a turn (user + assistant) = 220 tokens.
  const budget = createBudget({
    contextWindow: 1000,
    reserveOutput: 0,
    warningBuffer: 300,
    autoCompactBuffer: 200,
    blockingBuffer: 100,
  });
  const turns = (count: number) =>
    frozen(
      Array.from({ length: count }, (_, i) => [
        user('x'.repeat(320), { id: `q${i}` }),
        assistant('y'.repeat(320), [], { id: `a${i}` }),
      ]).flat(),
    );

  it('trims oldest turns at the blocking level until the estimate is below auto-compact', () => {
    const input = turns(5); // 1100 ≥ blocking 900
    const r = createEmergencyTrim().run(input, makeCtx({ budget }));
    expect(r.messages.map((m) => m.id)).toEqual(['q2', 'a2', 'q3', 'a3', 'q4', 'a4']); // 660 < 800
    expect(r.journal.map((j) => [j.action, j.messageId, j.location])).toEqual([
      ['removed', 'q0', 'session-log'],
      ['removed', 'a0', 'session-log'],
      ['removed', 'q1', 'session-log'],
      ['removed', 'a1', 'session-log'],
    ]);
    expect([r.report.tokensBefore, r.report.tokensAfter]).toEqual([1100, 660]);
  });

  it('returns the input itself below the blocking level', () => {
    const input = turns(4); // 880 < 900
    const r = createEmergencyTrim().run(input, makeCtx({ budget }));
    expect([r.report.status, r.messages === input]).toEqual(['noop', true]);
  });

  it('removes at most maxTurns turns', () => {
    const r = createEmergencyTrim({ maxTurns: 1 }).run(turns(5), makeCtx({ budget }));
    expect(r.messages).toHaveLength(8);
  });

  it('removes at least minTurns turns even once below the target', () => {
    const r = createEmergencyTrim({ minTurns: 3 }).run(turns(5), makeCtx({ budget }));
    expect(r.messages).toHaveLength(4);
  });

  it('keeps pinned messages while their turns go', () => {
    const input = frozen([user('x'.repeat(320), { id: 'p', meta: { pinned: true } }), ...turns(5)]);
    const r = createEmergencyTrim().run(input, makeCtx({ budget }));
    expect(r.messages[0]!.id).toBe('p');
    expect(r.journal.some((j) => j.messageId === 'p')).toBe(false);
  });
});

describe('createEmergencyTrim and excludeTools', () => {
  it('keeps results of excluded tools and their calls while their turn goes', () => {
    const budget = createBudget({
      contextWindow: 1000,
      reserveOutput: 0,
      autoCompactBuffer: 200,
      blockingBuffer: 100,
    });
    const input = frozen([
      user('x'.repeat(320), { id: 'q0' }),
      assistant('', [toolCall('m1', 'memory_get')], { id: 'a0' }),
      toolResult('m1', 'memory_get', 'remembered', { id: 't0' }),
      assistant('y'.repeat(320), [], { id: 'r0' }),
      ...Array.from({ length: 4 }, (_, i) => [
        user('x'.repeat(320), { id: `q${i + 1}` }),
        assistant('y'.repeat(320), [], { id: `a${i + 1}` }),
      ]).flat(),
    ]);
    const r = createEmergencyTrim().run(input, makeCtx({ budget, excludeTools: new Set(['memory_get']) }));
    expect(r.messages.slice(0, 2).map((m) => m.id)).toEqual(['a0', 't0']);
    expect(r.journal.map((j) => j.messageId)).toEqual(expect.arrayContaining(['q0', 'r0']));
  });
});

describe('emergency trim after a compaction', () => {
  it('keeps the compaction summary and trims the turns after it', async () => {
    const summary = user('[Previous conversation summary]\n\nsrc/a.ts', {
      id: 's',
      meta: { kind: 'summary' },
    });
    const big = 'x'.repeat(4000);
    const messages = frozen([
      summary,
      q(big, undefined, 'q1'),
      assistant(big, [], { id: 'a1' }),
      q('now', undefined, 'q2'),
    ]);
    const budget = createBudget({
      contextWindow: 2000,
      reserveOutput: 0,
      warningBuffer: 900,
      autoCompactBuffer: 600,
      blockingBuffer: 300,
    });
    const result = await createEmergencyTrim({}).run(messages, makeCtx({ budget }));
    expect(result.messages.map((m) => m.id)).toEqual(['s', 'q2']);
  });
});
