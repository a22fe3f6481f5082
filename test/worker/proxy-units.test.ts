/**
 * The proxy's pure pieces: the SSE reader across chunk boundaries, digests, answer accumulators, the
 * session object's write queue.
 */
import { describe, expect, it } from 'vitest';
import { fromOpenAI, type Message } from '../../src/core/index.ts';
import { anthropicMessages } from '../../src/worker/proxy/anthropic-messages.ts';
import { messageDigest, withDigest } from '../../src/worker/proxy/digest.ts';
import { sameLeading, scanArrayField } from '../../src/worker/proxy/json-scan.ts';
import { knownWindow } from '../../src/worker/proxy/model-windows.ts';
import { openAIChat } from '../../src/worker/proxy/openai-chat.ts';
import { cutWorking, sendRefs } from '../../src/worker/proxy/proxy-path.ts';
import {
  createSseFramer,
  createSseReader,
  type SseEvent,
  SseEventTooLarge,
} from '../../src/worker/proxy/sse.ts';
import { phaseTimer, serverTiming, timingOn } from '../../src/worker/proxy/timing.ts';
import { createWriteQueue } from '../../src/worker/session/write-queue.ts';

const enc = new TextEncoder();

function readAll(text: string, cut: number): SseEvent[] {
  const r = createSseReader();
  const out: SseEvent[] = [];
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += cut) out.push(...r.push(bytes.slice(i, i + cut)));
  return [...out, ...r.end()];
}

describe('createSseReader', () => {
  const stream =
    'event: a\ndata: {"x":1}\n\n: comment\r\ndata: line1\r\ndata: line2\r\n\r\ndata: [DONE]\r\rdata: é✓\n';
  it('gives the same events whatever the chunk boundaries, multi-byte characters included', () => {
    const whole = readAll(stream, 10_000);
    expect(whole).toEqual([
      { event: 'a', data: '{"x":1}' },
      { event: undefined, data: 'line1\nline2' },
      { event: undefined, data: '[DONE]' },
      { event: undefined, data: 'é✓' },
    ]);
    for (const cut of [1, 2, 3, 7]) expect(readAll(stream, cut)).toEqual(whole);
  });

  it('drops a half-written last line: an event is whole only once its lines ended', () => {
    expect(readAll('data: 1\n\ndata: {"hal', 4)).toEqual([{ event: undefined, data: '1' }]);
  });
});

describe('createSseFramer', () => {
  it('hands on the bytes of each whole event as they came, and holds an event still arriving', () => {
    const framer = createSseFramer();
    const first = framer.push(enc.encode('data: a\r\n\r\ndata: b'));
    expect(first.bytes.map((b) => new TextDecoder().decode(b))).toEqual(['data: a\r\n\r\n']);
    const second = framer.push(enc.encode('\n\n'));
    expect(second.bytes.map((b) => new TextDecoder().decode(b))).toEqual(['data: b\n\n']);
    expect(second.events.map((e) => e.data)).toEqual(['b']);
  });

  it('refuses an event past its bound before decoding any of it', () => {
    const framer = createSseFramer(1000);
    framer.push(enc.encode(`data: ${'x'.repeat(600)}`));
    expect(() => framer.push(enc.encode('x'.repeat(600)))).toThrow(SseEventTooLarge);
  });

  it('reads an 8 MB event in linear time: chunk by chunk about as fast as in one piece', () => {
    const bytes = enc.encode(`data: ${'y'.repeat(8 * 1024 * 1024)}\n\n`);
    const time = (piece: number) => {
      const reader = createSseReader();
      const started = performance.now();
      let events = 0;
      for (let i = 0; i < bytes.length; i += piece)
        events += reader.push(bytes.subarray(i, i + piece)).length;
      expect(events).toBe(1);
      return performance.now() - started;
    };
    const whole = time(bytes.length);
    const chunked = time(16 * 1024);
    // Searching the whole pending buffer again at every chunk (quadratic) takes seconds here.
    expect(chunked).toBeLessThan(whole * 4 + 250);
  });
});

describe('messageDigest', () => {
  it('is the same for a rebuilt message and differs when what the model reads differs', () => {
    const [a] = fromOpenAI([{ role: 'assistant', content: 'hi', refusal: null }]);
    const [b] = fromOpenAI([{ role: 'assistant', content: 'hi', meta: { x: 1 } }]);
    const [c] = fromOpenAI([{ role: 'assistant', content: 'hi!' }]);
    const [d] = fromOpenAI([{ role: 'user', content: 'hi' }]);
    expect(messageDigest(a!)).toBe(messageDigest(b!));
    expect(messageDigest(a!)).not.toBe(messageDigest(c!));
    expect(messageDigest(a!)).not.toBe(messageDigest(d!));
  });
});

describe('openAIChat.accumulator', () => {
  it('joins streamed text and tool-call deltas into one message with the usage', () => {
    const acc = openAIChat.accumulator();
    const chunk = (delta: object, extra: object = {}) =>
      acc.push({
        event: undefined,
        data: JSON.stringify({ model: 'm', choices: [{ index: 0, delta }], ...extra }),
      });
    chunk({ role: 'assistant', content: 'Let ' });
    chunk({ content: 'me.' });
    chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'read', arguments: '{"pa' } }] });
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a"}' } }] });
    acc.push({
      event: undefined,
      data: JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } }),
    });
    acc.push({ event: undefined, data: '[DONE]' });
    const m = acc.finish()!;
    expect(m.parts).toEqual([
      { type: 'text', text: 'Let me.' },
      { type: 'tool-call', id: 'c1', name: 'read', args: { path: 'a' } },
    ]);
    expect(m.usage).toMatchObject({ inputTokens: 9, outputTokens: 3 });
  });
});

describe('anthropicMessages.render', () => {
  it('keeps the client system as sent when nothing is added, and appends the memory block after it', () => {
    const request = anthropicMessages.parse({
      model: 'claude-x',
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
    });
    expect(anthropicMessages.render(request, request.messages, '').system).toEqual([
      { type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } },
    ]);
    expect(anthropicMessages.render(request, request.messages, 'MEM').system).toEqual([
      { type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'MEM' },
    ]);
  });
});

describe('cutWorking', () => {
  const rows = [1, 2, 3, 4].map((seq) => ({
    seq,
    message: { id: `m${seq}`, role: 'user' as const, parts: [] },
    createdAt: 0,
    compacted: false,
  }));
  it('keeps the common prefix of a whole-log context', () => {
    expect(cutWorking(null, rows, 2, 4)).toEqual({ throughSeq: 4, items: [{ seq: 1 }, { seq: 2 }] });
  });
  it('refuses to cut inside what a summary already folded', () => {
    const summary = { message: { id: 's', role: 'user' as const, parts: [] } };
    expect(cutWorking({ throughSeq: 3, items: [summary, { seq: 3 }] }, rows, 1, 4)).toBeUndefined();
    expect(cutWorking({ throughSeq: 3, items: [summary, { seq: 3 }] }, rows, 3, 4)).toEqual({
      throughSeq: 4,
      items: [summary, { seq: 3 }],
    });
  });
});

describe('knownWindow', () => {
  it('finds the longest matching model prefix, and nothing for an unknown model', () => {
    expect(knownWindow('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(knownWindow('gpt-4.1-mini')).toBe(1_047_576);
    expect(knownWindow('openai/gpt-5')).toBe(400_000);
    expect(knownWindow('claude-sonnet-4-6')).toBe(200_000);
    expect(knownWindow('llama-3')).toBeUndefined();
  });
});

describe('phaseTimer', () => {
  it('records nothing unless PROXY_TIMING is 1', () => {
    expect(timingOn({})).toBe(false);
    expect(timingOn({ PROXY_TIMING: 'yes' })).toBe(false);
    expect(timingOn({ PROXY_TIMING: '1' })).toBe(true);
    const off = phaseTimer(false);
    off.mark('read');
    off.add('do.', [['load', 1]]);
    expect(off.phases).toEqual([]);
  });

  it('times each phase since the previous mark and adds the object phases with a prefix', () => {
    const t = phaseTimer(true);
    const until = performance.now() + 3;
    while (performance.now() < until) {}
    t.mark('read');
    t.mark('parse');
    t.add('do.', [['write', 6.5]]);
    expect(t.phases.map(([n]) => n)).toEqual(['read', 'parse', 'do.write']);
    expect(t.phases[0]![1]).toBeGreaterThanOrEqual(3);
    expect(t.phases[1]![1]).toBeLessThan(t.phases[0]![1]);
    expect(serverTiming(t.phases.slice(2))).toBe('do.write;dur=6.50');
  });
});

describe('createWriteQueue', () => {
  const later = () => {
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };

  it("gives a call's value at once and holds the next call until that call's write settled", async () => {
    const q = createWriteQueue({ onFailure: () => {} });
    const write = later();
    const order: string[] = [];
    const first = await q.run(async () => ({ value: 'context', after: write.promise }));
    expect(first).toBe('context');
    const second = q.run(async () => {
      order.push('second ran');
      return { value: 2 };
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    order.push('write done');
    write.resolve();
    expect(await second).toBe(2);
    expect(order).toEqual(['write done', 'second ran']);
  });

  it('runs the next call after a failed write too, and reports the failure', async () => {
    let failures = 0;
    const q = createWriteQueue({ onFailure: () => failures++ });
    const write = later();
    await q.run(async () => ({ value: 1, after: write.promise }));
    const next = q.run(async () => ({ value: 'next' }));
    write.reject(new Error('D1 down'));
    expect(await next).toBe('next');
    expect(failures).toBe(1);
    await expect(q.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(failures).toBe(2);
    expect(await q.run(async () => ({ value: 'after a failed call' }))).toBe('after a failed call');
  });
});

describe('sendRefs', () => {
  const text = (id: string, role: 'user' | 'assistant', t: string): Message => ({
    id,
    role,
    parts: [{ type: 'text', text: t }],
  });
  const logged = (m: Message) => withDigest(m, messageDigest(m));
  const row = (seq: number, message: Message) => ({ seq, message, createdAt: 0, compacted: false });

  it('names by index the messages the log holds as the client sent them and the pipeline left alone', () => {
    const u1 = logged(text('m1', 'user', 'read the file'));
    const a1 = logged(text('m2', 'assistant', 'done'));
    // Cut on the way in (output truncation): its digest is still the client's, its content is not.
    const cut = {
      ...logged(text('m3', 'user', 'a very long paste')),
      parts: [{ type: 'text' as const, text: 'a ver…' }],
    };
    const fresh = logged(text('m4', 'user', 'go on'));
    const path = [row(1, u1), row(2, a1), row(3, cut)];
    const rewritten = { ...a1, parts: [{ type: 'text' as const, text: 'done (shortened)' }] };
    expect(sendRefs([u1, rewritten, cut, fresh], path, 3, [fresh])).toEqual([0, rewritten, cut, 3]);
    // A message without the digest it was logged with (not from the proxy) is sent whole.
    const plain = text('m5', 'user', 'hi');
    expect(sendRefs([plain], [row(1, plain)], 1, [])).toEqual([plain]);
  });
});

describe('scanArrayField / sameLeading', () => {
  const elements = (text: string, field = 'messages') => {
    const layout = scanArrayField(text, field);
    if (!layout) return undefined;
    let from = layout.start + 1;
    return layout.ends.map((end) => {
      const el = JSON.parse(text.slice(from, end).replace(/^\s*,?/, '')) as unknown;
      from = end + 1;
      return el;
    });
  };

  it('finds each element of the field, whatever the spacing, escapes and nesting', () => {
    const body = {
      tools: [{ a: '"]}', b: [1, { c: '\\' }] }],
      model: 'm',
      messages: [
        { role: 'user', content: 'say "hi" \\ [x] {y}' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { arguments: '{"p":"]"}' } }] },
        { role: 'tool', content: '\\"' },
      ],
      n: 1.5e3,
      stream: true,
    };
    expect(elements(JSON.stringify(body))).toEqual(body.messages);
    expect(elements(JSON.stringify(body, null, 2))).toEqual(body.messages);
    expect(elements('{"messages":[]}')).toEqual([]);
    expect(elements('{"m\\u0065ssages":[1,2]}')).toEqual([1, 2]);
  });

  it('gives up on what JSON.parse would read differently: a repeated field, a field that is not an array', () => {
    expect(scanArrayField('{"messages":[1],"messages":[2]}', 'messages')).toBeUndefined();
    expect(scanArrayField('{"messages":"x"}', 'messages')).toBeUndefined();
    expect(scanArrayField('[1]', 'messages')).toBeUndefined();
    expect(scanArrayField('{"model":"x"}', 'messages')).toBeUndefined();
  });

  it('counts the leading elements that are the same text as in the known body', () => {
    const a = '{"model":"a","messages":[{"x":1},{"x":2},{"x":3}]}';
    const same = (b: string) =>
      sameLeading(a, scanArrayField(a, 'messages')!, b, scanArrayField(b, 'messages')!);
    expect(same('{"model":"other","messages":[{"x":1},{"x":2},{"x":3},{"x":4}]}')).toBe(3);
    expect(same('{"messages":[{"x":1},{"x":2}],"model":"a"}')).toBe(2);
    expect(same('{"messages":[{"x":1},{"x":9},{"x":3}]}')).toBe(1);
    expect(same('{"messages":[{"x": 1},{"x":2}]}')).toBe(0);
    expect(same('{"messages":[]}')).toBe(0);
  });
});
