import { describe, expect, it } from 'vitest';
import type { Message, TokenCounter } from '../../src/core/index.ts';
import {
  assistant,
  createChars4Counter,
  createCowagentCounter,
  createKosmokratorCounter,
  estimateContext,
  memoizeCounter,
  pyJsonDumps,
  system,
  toolCall,
  toolResult,
  user,
} from '../../src/core/index.ts';

describe('createKosmokratorCounter', () => {
  const c = createKosmokratorCounter();
  it('matches the upstream test anchors', () => {
    expect([c.countText(''), c.countText('hello'), c.countText('abcdefgh')]).toEqual([0, 2, 3]);
    expect(c.countMessage(user('hello world'))).toBe(14);
    expect(c.countMessage(assistant('response text'))).toBe(15);
    expect(c.countMessage(system('system prompt text'))).toBe(16);
    expect(c.countMessage(toolResult('c', 'f', 'x'.repeat(400)))).toBe(135);
    expect([user('hello'), user('world'), user('test')].reduce((s, m) => s + c.countMessage(m), 0)).toBe(36);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(c.countText('😀😀😀😀')).toBe(2); // 4 code points / 3.2
  });
});

describe('createCowagentCounter', () => {
  const c = createCowagentCounter();
  it('weights ASCII 0.25 and non-ASCII 1.5, plus one', () => {
    expect(c.countText('')).toBe(0);
    expect(c.countText('abcd')).toBe(2);
    expect(c.countText('你好')).toBe(4);
  });

  it('charges block overheads for tool calls and results', () => {
    const call = assistant('', [toolCall('c', 'f', { a: 1 })]);
    // 50 + estimate('{"a": 1}') = 50 + int(8 × 0.25) + 1
    expect(c.countMessage(call)).toBe(53);
    expect(c.countMessage(toolResult('c', 'f', { k: 'v' }))).toBe(30);
    expect(c.countMessage(user(''))).toBe(1);
  });
});

describe('createChars4Counter', () => {
  it('counts UTF-8 bytes by default, as the Go code does', () => {
    expect(createChars4Counter().countText('你好')).toBe(2); // 6 bytes
    expect(createChars4Counter({ unit: 'chars' }).countText('你好')).toBe(1);
  });

  it('counts invisible messages as zero and images as 1200', () => {
    const c = createChars4Counter();
    expect(c.countMessage(user('abcd', { meta: { agentVisible: false } }))).toBe(0);
    expect(c.countMessage(user([{ type: 'image', url: 'https://x/y.png' }]))).toBe(1200);
  });
});

describe('pyJsonDumps', () => {
  it('uses Python separators and keeps non-ASCII', () => {
    expect(pyJsonDumps({ a: [1, 'é'], b: null })).toBe('{"a": [1, "é"], "b": null}');
  });
});

describe('memoizeCounter', () => {
  it('counts each message object once', () => {
    let calls = 0;
    const inner: TokenCounter = { name: 'n', countText: () => 1, countMessage: () => ++calls };
    const c = memoizeCounter(inner);
    const m = user('x');
    c.countMessage(m);
    c.countMessage(m);
    expect(calls).toBe(1);
  });
});

describe('estimateContext', () => {
  const c = createChars4Counter();
  const withUsage = (m: Message, total: number, stopReason?: string): Message => ({
    ...m,
    usage: stopReason
      ? { inputTokens: total, outputTokens: 0, stopReason }
      : { inputTokens: total, outputTokens: 0 },
  });

  it('anchors to the last reported usage plus the messages after it', () => {
    const ms = [user('aaaa'), withUsage(assistant('bbbb', [], { id: 'anchor' }), 1000), user('cccccccc')];
    const e = estimateContext({ messages: ms }, c);
    expect([e.tokens, e.anchorId]).toEqual([1002, 'anchor']);
  });

  it('ignores aborted usages and falls back to the heuristic sum with system and tools', () => {
    const ms = [user('aaaa'), withUsage(assistant('bbbb'), 1000, 'aborted')];
    const e = estimateContext({ messages: ms, system: 'x'.repeat(40), tools: [{ name: 'f' }] }, c);
    expect(e.anchorId).toBeUndefined();
    expect([e.system, e.tools, e.messages, e.tokens]).toEqual([10, 4, 2, 16]);
  });
});
