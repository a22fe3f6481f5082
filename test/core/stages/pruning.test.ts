import { describe, expect, it } from 'vitest';
import { assistant, system, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { JsonValue, Message } from '../../../src/core/messages/types.ts';
import {
  createPruning,
  kosmokratorPlaceholder,
  PRUNE_SHELL_PLACEHOLDER,
  pruneTokens,
} from '../../../src/core/pipeline/stages/pruning.ts';
import { frozen, makeCtx, out } from './cheap-helpers.ts';

let n = 0;
function call(
  name: string,
  args: Record<string, JsonValue>,
  output: string,
  meta?: Message['meta'],
): Message[] {
  n += 1;
  return [
    assistant('', [toolCall(`c${n}`, name, args)], { id: `a${n}` }),
    toolResult(`c${n}`, name, output, { id: `t${n}`, ...(meta ? { meta } : {}) }),
  ];
}
const tail = () => [user('second', { id: 'u2' }), assistant('answer'), user('third', { id: 'u3' })];

describe('pruneTokens', () => {
  it('is ceil(code points / 3.2)', () => {
    expect([
      pruneTokens(''),
      pruneTokens('hello'),
      pruneTokens('x'.repeat(32000)),
      pruneTokens('世'.repeat(4)),
    ]).toEqual([0, 2, 10000, 2]);
  });
});

describe('createPruning (kosmokrator)', () => {
  const stage = createPruning({ mode: 'kosmokrator' });

  it('protects 40000 tokens and prunes only until 20000 tokens are saved, newest candidate first on ties', () => {
    const results = Array.from({ length: 8 }, (_, i) =>
      call('bash', { command: `cmd${i}` }, `${i}`.repeat(32000)),
    );
    const input = frozen([user('first'), ...results.flat(), ...tail()]);
    const r = stage.run(input, makeCtx());
    const outputs = results.map((_, i) => out(r.messages[2 + 2 * i]));
    expect(outputs.map((o) => o === PRUNE_SHELL_PLACEHOLDER)).toEqual([
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(r.report.detail).toBe('pruned 2 result(s), ~20000 tokens');
    expect(r.journal.map((j) => j.action)).toEqual(['replaced', 'replaced']);
  });

  it('returns the input itself when all candidates together save less than 20000 tokens', () => {
    const results = Array.from({ length: 5 }, (_, i) => call('bash', {}, `${i}`.repeat(32000)));
    const input = frozen([user('first'), ...results.flat(), ...tail()]);
    const r = stage.run(input, makeCtx());
    expect([r.report.status, r.messages === input]).toEqual(['noop', true]);
  });

  it('prunes the highest priority first and lowers scores for results later assistants refer to', () => {
    const small = createPruning({ mode: 'kosmokrator', protectTokens: 0, minSavings: 1 });
    const input = frozen([
      user('first'),
      ...call('file_read', { path: 'src/a.ts' }, 'A'.repeat(100)),
      ...call('bash', { command: 'make' }, 'B'.repeat(100)),
      ...call('grep', { path: 'src/b.ts', pattern: 'x' }, 'C'.repeat(100)),
      ...tail(),
    ]);
    const r = small.run(input, makeCtx());
    expect([out(r.messages[2]), out(r.messages[4]), out(r.messages[6])]).toEqual([
      'A'.repeat(100),
      PRUNE_SHELL_PLACEHOLDER,
      'C'.repeat(100),
    ]);
    const quoted = frozen([
      user('first'),
      ...call('bash', {}, `quoted output line ${'x'.repeat(100)}`),
      ...call('bash', {}, `other output line ${'y'.repeat(100)}`),
      assistant('The issue is in: QUOTED OUTPUT LINE xxx'),
      ...tail(),
    ]);
    const r2 = small.run(quoted, makeCtx());
    expect([
      out(r2.messages[2]) === PRUNE_SHELL_PLACEHOLDER,
      out(r2.messages[4]) === PRUNE_SHELL_PLACEHOLDER,
    ]).toEqual([false, true]);
  });

  it('emits the five 002 placeholders', () => {
    expect([
      kosmokratorPlaceholder('file_read', { path: 'a.ts' }),
      kosmokratorPlaceholder('grep', { path: 'src' }),
      kosmokratorPlaceholder('glob', { pattern: '*' }),
      kosmokratorPlaceholder('shell_read', {}),
      kosmokratorPlaceholder('web_fetch', { url: 'u' }),
      kosmokratorPlaceholder('file_read', {}),
    ]).toEqual([
      '[Old file_read output cleared for a.ts]',
      '[Old grep output cleared for src]',
      '[Old glob output cleared]',
      '[Old shell output cleared; inspect truncation storage or rerun targeted commands if needed]',
      '[Old tool result content cleared]',
      '[Old tool result content cleared]',
    ]);
  });

  it('stops walking back at a system message', () => {
    const small = createPruning({ mode: 'kosmokrator', protectTokens: 0, minSavings: 1 });
    const input = frozen([user('first'), ...call('bash', {}, 'x'.repeat(100)), system('summary'), ...tail()]);
    expect(small.run(input, makeCtx()).messages).toBe(input);
  });

  it('needs 4 messages and 2 user messages', () => {
    const small = createPruning({ protectTokens: 0, minSavings: 1 });
    const three = frozen([user('a'), ...call('bash', {}, 'x'.repeat(100))]);
    const oneUser = frozen([user('a'), ...call('bash', {}, 'x'.repeat(100)), assistant('ok')]);
    expect(small.run(three, makeCtx()).messages).toBe(three);
    expect(small.run(oneUser, makeCtx()).messages).toBe(oneUser);
  });

  it('counts but never prunes pinned results and excluded tools', () => {
    const small = createPruning({ mode: 'kosmokrator', protectTokens: 0, minSavings: 1 });
    const input = frozen([
      user('first'),
      ...call('bash', {}, 'x'.repeat(100), { pinned: true }),
      ...call('memory_get', {}, 'y'.repeat(100)),
      ...tail(),
    ]);
    expect(small.run(input, makeCtx({ excludeTools: new Set(['memory_get']) })).messages).toBe(input);
  });
});

describe('createPruning (default)', () => {
  it('writes context-aware placeholders naming tool, target, size and recovery handle', () => {
    const small = createPruning({ protectTokens: 0, minSavings: 1 });
    const input = frozen([
      user('first'),
      ...call('Grep', { path: 'src/x.ts', pattern: 'foo' }, 'g'.repeat(3949)),
      ...tail(),
    ]);
    const r = small.run(input, makeCtx());
    expect(out(r.messages[2])).toBe(
      `[Old Grep output cleared for src/x.ts (foo) — 1,235 tokens; recover: call c${n} is kept in the session log as message t${n}]`,
    );
  });
});

describe('createPruning with minSavings 0 (002 HEAD: add, then stop only when minSavings > 0)', () => {
  const stage = createPruning({ mode: 'kosmokrator', protectTokens: 1000, minSavings: 0 });
  // Each result is 1000 tokens (3200 chars); walking back, the first stays within the 1000 protected.
  const results = Array.from({ length: 5 }, (_, i) => call('bash', { command: `z${i}` }, 'z'.repeat(3200)));
  const input = frozen([user('first'), ...results.flat(), ...tail()]);

  it('prunes every candidate outside the protected region', () => {
    const r = stage.run(input, makeCtx());
    const pruned = results.map((_, i) => out(r.messages[2 + 2 * i]) === PRUNE_SHELL_PLACEHOLDER);
    expect(pruned).toEqual([true, true, true, true, false]);
    expect(r.report.status).toBe('applied');
    expect(r.report.detail).toBe('pruned 4 result(s), ~4000 tokens');
    expect(r.journal).toHaveLength(4);
  });

  it('reports noop, returning its input, when nothing is left to prune', () => {
    const once = stage.run(input, makeCtx());
    const again = stage.run(once.messages, makeCtx());
    expect(again.report.status).toBe('noop');
    expect(again.messages).toBe(once.messages);
    expect(again.journal).toEqual([]);
  });

  it('reports noop when every result sits inside the protected tokens', () => {
    const r = createPruning({ mode: 'kosmokrator', protectTokens: 1_000_000, minSavings: 0 }).run(
      input,
      makeCtx(),
    );
    expect(r.report.status).toBe('noop');
    expect(r.messages).toBe(input);
  });

  it('still stops at a positive minimum once it is reached (the crossing candidate included)', () => {
    const r = createPruning({ mode: 'kosmokrator', protectTokens: 1000, minSavings: 1500 }).run(
      input,
      makeCtx(),
    );
    expect(r.report.detail).toBe('pruned 2 result(s), ~2000 tokens');
  });
});
