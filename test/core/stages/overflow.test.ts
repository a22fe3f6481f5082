import { describe, expect, it } from 'vitest';
import { CtxError } from '../../../src/core/errors.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import { aggressiveTrim } from '../../../src/core/pipeline/presets/cowagent/aggressive-trim.ts';
import { recoverFromOverflow, trimOldestTurn } from '../../../src/core/pipeline/stages/overflow.ts';
import {
  isContextOverflowError,
  isMessageFormatError,
  sanitizeErrorMessage,
} from '../../../src/core/pipeline/stages/overflow-errors.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { conversation, deepFreeze, ids, makeCtx, violations } from './compaction-helpers.ts';

describe('isContextOverflowError', () => {
  it.each([
    'Error [context_overflow]',
    "This model's maximum context length is 128000 tokens",
    'prompt is too long: 210000 tokens > 200000 maximum',
    'request_too_large',
    'HTTP 413 Request Entity Too Large',
    'Error 400: input token count exceeds',
    'context_length_exceeded',
    'Input is too long for requested model',
    'finish_reason content filter due to length',
  ])('is true for %s', (text) => {
    expect(isContextOverflowError(text)).toBe(true);
    expect(isContextOverflowError(new Error(text))).toBe(true);
  });

  it.each(['rate limit exceeded', '500 internal server error', 'invalid api key', ''])(
    'is false for %s',
    (text) => {
      expect(isContextOverflowError(text)).toBe(false);
    },
  );

  it('is true for a context_overflow CtxError', () => {
    expect(isContextOverflowError(new CtxError('context_overflow', 'does not fit'))).toBe(true);
  });
});

describe('isMessageFormatError', () => {
  it('is true for a 400 about tool pairing and false for an overflow', () => {
    expect(
      isMessageFormatError('400 invalid_request_error: tool_use ids were found without tool_result blocks'),
    ).toBe(true);
    expect(isMessageFormatError('400 prompt is too long')).toBe(false);
  });
});

describe('sanitizeErrorMessage', () => {
  it('redacts keys and home paths', () => {
    expect(sanitizeErrorMessage(' bad key sk-abcdefghijkl at /home/alice/x ')).toBe(
      'bad key [REDACTED_KEY] at /***/x',
    );
  });
});

describe('aggressiveTrim', () => {
  it('cuts results, long tool arguments and user text with the 000 notices and keeps the last 5 turns', () => {
    const big = 'b'.repeat(12_000);
    const input = deepFreeze([
      ...conversation(6),
      user(big, { id: 'ubig' }),
      assistant('', [toolCall('k', 'write', { path: 'a.ts', content: big })], { id: 'cbig' }),
      toolResult('k', 'write', big, { id: 'rbig' }),
    ]);
    const r = aggressiveTrim(input, makeCtx());
    expect(r.changed).toBe(true);
    const byId = new Map(r.messages.map((m) => [m.id, m]));
    expect(byId.get('u1')).toBeUndefined();
    expect(ids(r.messages)[0]).toBe('u3');
    expect(byId.get('ubig')!.parts[0]).toEqual({
      type: 'text',
      text: `${'b'.repeat(10_000)}\n\n[Message truncated for context recovery: 12000 -> 10000 chars]`,
    });
    expect(byId.get('cbig')!.parts[0]).toMatchObject({
      args: { path: 'a.ts', content: `${'b'.repeat(1000)}... [truncated 12000 chars]` },
    });
    expect(byId.get('rbig')!.parts[0]).toMatchObject({
      output: `${'b'.repeat(10_000)}\n\n[Truncated for context recovery: 12000 -> 10000 chars]`,
    });
    expect(violations(r.messages, input)).toEqual([]);
  });

  it('returns the input itself when nothing can be trimmed', () => {
    const input = deepFreeze(conversation(3));
    const r = aggressiveTrim(input, makeCtx());
    expect(r.changed).toBe(false);
    expect(r.messages).toBe(input);
  });
});

describe('recoverFromOverflow', () => {
  it('cowagent: flushes, trims once, then clears', async () => {
    const input = deepFreeze(conversation(8));
    const ctx = makeCtx({ summarizer: createScriptedSummarizer({ fallback: { summary: 'daily' } }) });
    const first = await recoverFromOverflow(input, ctx, { preset: 'cowagent', attempt: 1 });
    expect(first.verdict).toBe('retry');
    expect(first.flushes![0]).toMatchObject({ reason: 'overflow', summary: 'daily' });
    expect(ids(first.messages)[0]).toBe('u4');
    const second = await recoverFromOverflow(first.messages, ctx, { preset: 'cowagent', attempt: 2 });
    expect(second.verdict).toBe('clear-history');
    expect(second.report.status).toBe('failed');
  });

  it('kosmokrator: compaction, then trimOldest, then an Error message', async () => {
    const input = deepFreeze(conversation(6));
    const ctx = makeCtx();
    const a1 = await recoverFromOverflow(input, ctx, { preset: 'kosmokrator', attempt: 1 });
    expect(a1.verdict).toBe('retry');
    expect(a1.messages[0]!.role).toBe('system');
    const a2 = await recoverFromOverflow(input, ctx, { preset: 'kosmokrator', attempt: 2 });
    expect(ids(a2.messages)[0]).toBe('u2');
    const a4 = await recoverFromOverflow(input, ctx, {
      preset: 'kosmokrator',
      attempt: 4,
      error: new Error('prompt is too long'),
    });
    expect(a4.verdict).toBe('give-up');
    expect(a4.messages.at(-1)!.parts[0]).toEqual({ type: 'text', text: 'Error: prompt is too long' });
  });

  it('tiancai: compacts and retries once, then gives up', async () => {
    const input = deepFreeze(conversation(30, { pad: 3000 }));
    const ctx = makeCtx();
    expect((await recoverFromOverflow(input, ctx, { preset: 'tiancai', attempt: 1 })).verdict).toBe('retry');
    const again = await recoverFromOverflow(input, ctx, { preset: 'tiancai', attempt: 2 });
    expect(again.verdict).toBe('give-up');
    expect(again.messages).toBe(input);
  });

  it('default: flushes, compacts and retries once', async () => {
    const input = deepFreeze(conversation(40, { tools: true, pad: 8000 }));
    const summarizer = createScriptedSummarizer({ fallback: { summary: 'S' } });
    const r = await recoverFromOverflow(input, makeCtx({ summarizer }), { preset: 'default', attempt: 1 });
    expect(r.verdict).toBe('retry');
    expect(summarizer.requests.map((q) => q.purpose)).toEqual(['memory-flush', 'compaction']);
    expect(r.messages[0]!.parts[0]).toMatchObject({
      text: expect.stringMatching(/^\[Previous conversation summary\]\n\nS(\n|$)/),
    });
    expect(violations(r.messages, input)).toEqual([]);
    expect(r.state!.overflowAttempts).toBe(1);
  });
});

describe('trimOldestTurn', () => {
  it('removes the oldest whole turn and keeps a leading system message', () => {
    const input = deepFreeze([
      { id: 's', role: 'system' as const, parts: [{ type: 'text' as const, text: 'sys' }] },
      ...conversation(2),
    ]);
    expect(ids(trimOldestTurn(input, new Set())!)).toEqual(['s', 'u2', 'a2']);
  });

  it('keeps an excluded chain and every call of its assistant message', () => {
    const input = deepFreeze([
      user('q1', { id: 'u1' }),
      assistant('', [toolCall('k1', 'read'), toolCall('k2', 'todo')], { id: 'c' }),
      toolResult('k1', 'read', 'x', { id: 'r1' }),
      toolResult('k2', 'todo', 'y', { id: 'r2' }),
      user('q2', { id: 'u2' }),
    ]);
    const out = trimOldestTurn(input, new Set(['todo']))!;
    expect(ids(out)).toEqual(['c', 'r1', 'r2', 'u2']);
    expect(violations(out, input)).toEqual([]);
  });

  it('returns undefined for fewer than 3 messages', () => {
    expect(trimOldestTurn(deepFreeze(conversation(1)), new Set())).toBeUndefined();
  });
});
