import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part, TokenCounter } from '../../src/core/index.ts';
import {
  assistant,
  createCalibratedCounter,
  createPipeline,
  fixedClock,
  memoizeCounter,
  sequentialIds,
  toolCall,
  toolResult,
  user,
} from '../../src/core/index.ts';
import { historyArb } from '../support/arbitraries.ts';

/** A counter that counts its calls, over the calibrated counter. */
function probe(): TokenCounter & { calls: number } {
  const inner = createCalibratedCounter();
  const c = {
    name: 'probe',
    calls: 0,
    countText: (text: string) => {
      c.calls++;
      return inner.countText(text);
    },
    countMessage: (m: Message) => {
      c.calls++;
      return inner.countMessage(m);
    },
  };
  return c;
}

const reference = createCalibratedCounter();

describe('memoizeCounter', () => {
  it('counts a rebuilt message with the same content once', () => {
    const inner = probe();
    const c = memoizeCounter(inner);
    const m = assistant('Reading the file.', [toolCall('c1', 'read', { path: 'src/a.ts' })]);
    const n = c.countMessage(m);
    expect(c.countMessage(structuredClone(m))).toBe(n);
    expect(c.countMessage({ ...m, parts: [...m.parts] })).toBe(n);
    expect(inner.calls).toBe(1);
  });

  it('keys a hidden message by object only, and gives the wrapped counter’s count for it', () => {
    // A custom counter may count hidden messages; the memo must give what it says, not 0.
    const counts = { calls: 0 };
    const visibleOrNot: TokenCounter = {
      name: 'counts-hidden',
      countText: (t) => t.length,
      countMessage: (m) => {
        counts.calls++;
        return m.meta?.agentVisible === false ? 7 : 3;
      },
    };
    const c = memoizeCounter(visibleOrNot);
    const big = 'x'.repeat(50_000);
    const hidden = (): Message => ({ ...user(big, { id: 'h' }), meta: { agentVisible: false } });
    const a = hidden();
    expect(c.countMessage(a)).toBe(7);
    expect(c.countMessage(a)).toBe(7);
    expect(counts.calls).toBe(1);
    // A rebuilt hidden copy is counted again (its JSON is not taken), still 7.
    expect(c.countMessage(hidden())).toBe(7);
    expect(counts.calls).toBe(2);
    expect(c.countMessage(user(big, { id: 'h' }))).toBe(3);
  });

  it('counts another message on the same parts once, and an archived copy and its original once each', () => {
    const inner = probe();
    // Content keys off (the content is larger than an eighth of maxChars): only the object and parts
    // layers can spare a count here.
    const c = memoizeCounter(inner, { maxChars: 8 });
    const m = toolResult('c1', 'read', 'x'.repeat(2_000), { id: 't1', meta: { kind: 'tool_result' } });
    const n = c.countMessage(m);
    expect(c.countMessage({ ...m, id: 'other', meta: { kind: 'tool_result' } })).toBe(n);
    expect(inner.calls).toBe(1);
    const archived: Message = { ...m, meta: { kind: 'tool_result_archived', agentVisible: false } };
    for (let i = 0; i < 3; i++) {
      expect(c.countMessage(archived)).toBe(0);
      expect(c.countMessage(m)).toBe(n);
    }
    expect(inner.calls).toBe(2);
    // Another role, name or meta entry on the same parts is counted on its own.
    c.countMessage({ ...m, meta: { kind: 'tool_result', pinned: true } });
    c.countMessage({ ...m, name: 'x' });
    expect(inner.calls).toBe(4);
  });

  it('keys large content apart from the rest of the message, without two contents sharing a key', () => {
    // A counter whose count is a hash of the message's JSON: any two contents count differently.
    let calls = 0;
    const byJson: TokenCounter = {
      name: 'json-hash',
      countText: (t) => t.length,
      countMessage: (m) => {
        calls++;
        const json = JSON.stringify([m.role, m.name, m.meta, m.parts]);
        let h = 0;
        for (let i = 0; i < json.length; i++) h = (Math.imul(h, 31) + json.charCodeAt(i)) >>> 0;
        return h;
      },
    };
    const c = memoizeCounter(byJson);
    const big = 'line\n'.repeat(400);
    const result = (callId: string, output: string, extra: Part[] = []): Message => ({
      id: 'm',
      role: 'tool',
      parts: [...extra, { type: 'tool-result', callId, output }],
    });
    const variants: Message[] = [
      result('a', big),
      result('ab', big),
      result('a', `${big}x`),
      result('a', big, [{ type: 'text', text: 'note' }]),
      result('a', 'short', [{ type: 'text', text: big }]),
      { ...result('a', big), meta: { kind: 'tool_result' } },
      { id: 'm', role: 'user', parts: [{ type: 'text', text: big }] },
      { id: 'm', role: 'user', parts: [{ type: 'reasoning', text: big }] },
      { id: 'm', role: 'user', parts: [{ type: 'image', data: big, mediaType: 'image/png' }] },
      { id: 'm', role: 'user', parts: [{ type: 'image', url: big }] },
      // The same parts but for which one holds the large output (the other holds null).
      result('b', big, [{ type: 'tool-result', callId: 'a', output: null }]),
      {
        ...result('b', null as unknown as string),
        parts: [
          { type: 'tool-result', callId: 'a', output: big },
          { type: 'tool-result', callId: 'b', output: null },
        ],
      },
    ];
    for (const m of variants) expect(c.countMessage(m)).toBe(byJson.countMessage(m));
    // Each rebuilt copy is found by its content: no count past the first of each.
    calls = 0;
    for (const m of variants) expect(c.countMessage(structuredClone(m))).toBe(byJson.countMessage(m));
    expect(calls).toBe(variants.length);
  });

  it('counts again a message whose text was changed in place', () => {
    const c = memoizeCounter(probe());
    const m = user('short');
    c.countMessage(m);
    (m.parts[0] as { text: string }).text = 'a much longer text than before, '.repeat(20);
    expect(c.countMessage(m)).toBe(reference.countMessage(m));
  });

  it('counts again a message given a part, a new output or hidden in place', () => {
    const c = memoizeCounter(probe());
    const m = user('question');
    c.countMessage(m);
    m.parts.push({ type: 'text', text: 'and one more thing to read '.repeat(10) });
    expect(c.countMessage(m)).toBe(reference.countMessage(m));
    const t = { ...toolResult('c1', 'read', 'x'.repeat(2000)) };
    c.countMessage(t);
    (t.parts[0] as { output: string }).output = 'ok';
    expect(c.countMessage(t)).toBe(reference.countMessage(t));
    t.meta = { ...t.meta, agentVisible: false };
    expect(c.countMessage(t)).toBe(0);
  });

  it('never differs from the counter it wraps, through rebuilds and edits in place', () => {
    fc.assert(
      fc.property(historyArb({ maxTurns: 4 }), fc.array(fc.nat(), { maxLength: 30 }), (h, edits) => {
        const c = memoizeCounter(createCalibratedCounter(), { maxChars: 20_000 });
        const ms = h.messages;
        for (const m of ms) c.countMessage(m);
        for (const e of edits) {
          const i = e % ms.length;
          const m = ms[i]!;
          switch (e % 4) {
            case 0: // rebuilt, same content
              ms[i] = structuredClone(m);
              break;
            case 1: // a text part changed in place
              for (const p of m.parts) if (p.type === 'text') p.text += ` edit ${e}`;
              break;
            case 2: // a part added in place
              m.parts.push({ type: 'text', text: `added ${e}` } as Part);
              break;
            default: // hidden or shown again in place
              m.meta = { ...m.meta, agentVisible: m.meta?.agentVisible === false };
          }
          for (const x of ms) expect(c.countMessage(x)).toBe(reference.countMessage(x));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('holds at most maxChars of content keys (the oldest are counted again)', () => {
    const inner = probe();
    const c = memoizeCounter(inner, { maxChars: 8_000 });
    const texts = Array.from({ length: 20 }, (_, i) => `${i} ${'y'.repeat(900)}`);
    for (const t of texts) c.countText(t);
    for (const t of texts.slice(-5)) c.countText(t);
    expect(inner.calls).toBe(20);
    c.countText(texts[0]!);
    expect(inner.calls).toBe(21);
  });
});

describe('createPipeline (count cache)', () => {
  const history = [
    user('Fix the failing test in src/a.ts', { id: 'u1' }),
    assistant('', [toolCall('c1', 'read', { path: 'src/a.ts' })], { id: 'a1' }),
    toolResult('c1', 'read', 'export const a = 1;\n'.repeat(200), { id: 't1' }),
    assistant('The constant is wrong.', [], { id: 'a2' }),
  ];
  const options = {
    budget: { contextWindow: 4_000 },
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
  };

  it('gives a fresh pipeline’s result when the next input is a rebuilt copy of the working context', async () => {
    const pipeline = createPipeline(options);
    const first = await pipeline.prepare({ messages: history });
    const next = [...structuredClone(first.messages), user('And the other test?', { id: 'u2' })];
    const carried = await pipeline.prepare({ messages: next, state: first.state });
    const fresh = await createPipeline({ ...options, ids: sequentialIds() }).prepare({
      messages: structuredClone(next),
      state: first.state,
    });
    expect(carried.estimate).toEqual(fresh.estimate);
    expect(carried.send).toEqual(fresh.send);
  });

  it('gives a fresh pipeline’s estimate when a message was edited in place since the last run', async () => {
    const pipeline = createPipeline(options);
    const messages = structuredClone(history);
    await pipeline.prepare({ messages });
    (messages[3]!.parts[0] as { text: string }).text = 'The constant is wrong; '.repeat(40);
    const carried = await pipeline.prepare({ messages });
    const fresh = await createPipeline(options).prepare({ messages: structuredClone(messages) });
    expect(carried.estimate).toEqual(fresh.estimate);
  });
});
