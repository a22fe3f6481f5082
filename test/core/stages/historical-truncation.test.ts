import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../../src/core/errors.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { JsonValue, Message } from '../../../src/core/messages/types.ts';
import { prefixStable } from '../../../src/core/pipeline/engine/incremental.ts';
import { createHistoricalTruncation } from '../../../src/core/pipeline/stages/historical-truncation.ts';
import { pyJsonDumps } from '../../../src/core/tokens/py-json.ts';
import { countingCtx, deepFreeze, frozen, makeCtx, out } from './cheap-helpers.ts';

const turn = (id: string, output: string | JsonValue, name = 'bash'): Message[] => [
  assistant('', [toolCall(id, name)], { id: `a_${id}` }),
  toolResult(id, name, output, { id: `t_${id}` }),
];

describe('createHistoricalTruncation (cowagent)', () => {
  const stage = createHistoricalTruncation();

  it('keeps the first 20000 chars and appends the 000 notice when an earlier result is longer', () => {
    const input = frozen([
      user('q1'),
      ...turn('c1', 'x'.repeat(25000)),
      assistant('done'),
      user('q2', { id: 'u2' }),
    ]);
    const r = stage.run(input, makeCtx());
    expect(out(r.messages[2])).toBe(
      `${'x'.repeat(20000)}\n\n[Historical output truncated: 25000 -> 20000 chars]`,
    );
    expect(r.journal.map((j) => [j.action, j.messageId, j.location])).toEqual([
      ['truncated', 't_c1', 'session-log'],
    ]);
    expect(r.messages[0]).toBe(input[0]);
  });

  it('cuts ahead what the next user message makes historical: the step hands out that copy, counted once', () => {
    const { ctx, calls } = countingCtx();
    const counter = ctx.counter;
    const current = frozen([user('q1'), ...turn('c1', 'x'.repeat(25000)), ...turn('c2', 'short')]);
    const wrapped = prefixStable(stage, () => true);
    wrapped.ahead!(current, ctx); // between steps: c1 is not historical yet
    const next = [...current, user('q2', { id: 'u2' })];
    for (const m of next) counter.countMessage(m); // the step counts its input first
    const before = calls();
    const r = stage.run(next, ctx);
    expect(out(r.messages[2])).toBe(
      `${'x'.repeat(25000).slice(0, 20000)}\n\n[Historical output truncated: 25000 -> 20000 chars]`,
    );
    expect(calls()).toBe(before); // the cut copy was counted ahead, and is the object handed out now
    expect(stage.run([...current, user('q3', { id: 'u3' })], ctx).messages[2]).toBe(r.messages[2]);
    // Only what is not historical yet: a result before the last user text is left to the run.
    const historical = frozen([user('q1'), ...turn('c9', 'y'.repeat(25000)), user('q2')]);
    stage.ahead!(historical, ctx);
    for (const m of historical) counter.countMessage(m);
    const n = calls();
    stage.run(historical, ctx);
    expect(calls()).toBeGreaterThan(n);
  });

  it('returns the input itself when a result is exactly 20000 chars', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(20000)), user('q2')]);
    const r = stage.run(input, makeCtx());
    expect([r.report.status, r.messages === input]).toEqual(['noop', true]);
  });

  it('counts code points as Python len does', () => {
    const input = frozen([user('q1'), ...turn('c1', '🙂'.repeat(20001)), user('q2')]);
    expect(out(stage.run(input, makeCtx()).messages[2])).toBe(
      `${'🙂'.repeat(20000)}\n\n[Historical output truncated: 20001 -> 20000 chars]`,
    );
  });

  it('leaves results after the last user text message alone', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(30000))]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
  });

  it('leaves structured outputs alone', () => {
    const input = frozen([user('q1'), ...turn('c1', { big: 'x'.repeat(30000) }), user('q2')]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
  });

  it('returns the input itself on a second run', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(25000)), user('q2')]);
    const first = stage.run(input, makeCtx());
    const second = stage.run(deepFreeze(first.messages), makeCtx());
    expect(second.messages).toBe(first.messages);
  });

  it('respects excludeTools and pinned messages', () => {
    const input = frozen([
      user('q1'),
      ...turn('c1', 'x'.repeat(25000), 'memory_get'),
      assistant('', [toolCall('c2', 'bash')]),
      toolResult('c2', 'bash', 'y'.repeat(25000), { meta: { pinned: true } }),
      user('q2'),
    ]);
    expect(stage.run(input, makeCtx({ excludeTools: new Set(['memory_get']) })).messages).toBe(input);
  });
});

describe('createHistoricalTruncation (co-cli)', () => {
  const stage = createHistoricalTruncation({ mode: 'co-cli' });

  it('keeps 2000 chars plus the 001 marker before the last 2 messages', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(5000)), assistant('ok'), user('q2')]);
    const r = stage.run(input, makeCtx());
    expect(out(r.messages[2])).toBe(`${'x'.repeat(2000)}\n[…truncated, 5000 chars total]`);
  });

  it('changes nothing on a second run instead of drifting to 2031', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(5000)), assistant('ok'), user('q2')]);
    const first = stage.run(input, makeCtx());
    const second = stage.run(deepFreeze(first.messages), makeCtx());
    expect([second.report.status, second.messages === first.messages]).toEqual(['noop', true]);
  });

  it('measures dict outputs as json.dumps and turns them into strings', () => {
    const dict = { a: 'x'.repeat(3000), n: 1 };
    const input = frozen([user('q1'), ...turn('c1', dict), assistant('ok'), user('q2')]);
    const text = pyJsonDumps(dict);
    expect(out(stage.run(input, makeCtx()).messages[2])).toBe(
      `${text.slice(0, 2000)}\n[…truncated, ${text.length} chars total]`,
    );
  });

  it('protects the last 2 messages whatever they are', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(5000))]);
    expect(stage.run(input, makeCtx()).messages).toBe(input);
  });

  it('is disabled when maxChars ≤ 0', () => {
    const input = frozen([user('q1'), ...turn('c1', 'x'.repeat(5000)), user('a'), user('b')]);
    expect(createHistoricalTruncation({ mode: 'co-cli', maxChars: 0 }).run(input, makeCtx()).messages).toBe(
      input,
    );
  });
});

describe('createHistoricalTruncation options', () => {
  it('throws invalid_config naming the field when an option is wrong', () => {
    try {
      createHistoricalTruncation({ maxChars: 'x' as unknown as number });
      expect.unreachable();
    } catch (error) {
      expect(isCtxError(error, 'invalid_config')).toBe(true);
      expect((error as Error).message).toContain('historicalTruncation.maxChars');
    }
  });
});
