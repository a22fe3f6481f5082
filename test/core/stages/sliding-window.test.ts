import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { manualCompact } from '../../../src/core/pipeline/presets/co-cli/manual-compact.ts';
import { slidingWindow } from '../../../src/core/pipeline/presets/co-cli/sliding-window.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { deepFreeze, ids, makeCtx, violations } from './compaction-helpers.ts';

/** `n` messages alternating user / assistant text, ids m0…m{n-1}. */
function alternating(n: number): Message[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? user(`q${i}`, { id: `m${i}` }) : assistant(`a${i}`, [], { id: `m${i}` }),
  );
}

describe('slidingWindow', () => {
  it('keeps head 2 + marker + tail 20 = 23 messages when 41 messages exceed the default 40', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ summary: 'middle' }] });
    const r = await slidingWindow({ split: 'index' }).run(
      deepFreeze(alternating(41)),
      makeCtx({ summarizer }),
    );
    expect(r.messages).toHaveLength(23);
    expect(ids(r.messages).slice(0, 2)).toEqual(['m0', 'm1']);
    expect(r.messages[2]!.parts[0]).toEqual({
      type: 'text',
      text: '[Summary of 19 earlier messages]\nmiddle',
    });
    expect(r.messages[3]!.id).toBe('m21');
    expect(summarizer.requests[0]!.purpose).toBe('sliding-window');
    expect(summarizer.requests[0]!.messages).toHaveLength(19);
  });

  it('keeps head 2, tail 4 and drops 4 (7 messages) with 10 messages and max 6', async () => {
    const r = await slidingWindow({ maxMessages: 6 }).run(deepFreeze(alternating(10)), makeCtx());
    expect(r.messages).toHaveLength(7);
    expect(ids(r.messages)).toEqual(['m0', 'm1', r.messages[2]!.id, 'm6', 'm7', 'm8', 'm9']);
  });

  it('writes the static marker when the summarizer throws', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ error: 'boom' }] });
    const r = await slidingWindow({ maxMessages: 6 }).run(
      deepFreeze(alternating(10)),
      makeCtx({ summarizer }),
    );
    expect(r.messages[2]!.parts[0]).toEqual({
      type: 'text',
      text: '[Earlier conversation trimmed — 4 messages removed to stay within context budget]',
    });
    expect(r.report.error).toBe('boom');
    expect(r.journal.filter((j) => j.action === 'removed')).toHaveLength(4);
  });

  it('returns the input itself when within the window', async () => {
    const input = deepFreeze(alternating(40));
    const r = await slidingWindow().run(input, makeCtx());
    expect(r.messages).toBe(input);
    expect(r.report.status).toBe('noop');
  });

  const chain: Message[] = [
    user('start', { id: 'u0' }),
    assistant('ok', [], { id: 'a0' }),
    user('go', { id: 'u1' }),
    assistant('', [toolCall('k1', 'bash')], { id: 'c1' }),
    toolResult('k1', 'bash', 'out1', { id: 'r1' }),
    assistant('', [toolCall('k2', 'bash')], { id: 'c2' }),
    toolResult('k2', 'bash', 'out2', { id: 'r2' }),
    assistant('', [toolCall('k3', 'bash')], { id: 'c3' }),
    toolResult('k3', 'bash', 'out3', { id: 'r3' }),
    assistant('done', [], { id: 'a1' }),
  ];

  it('orphans a tool result with the index split, as co-cli does', async () => {
    // tail = last 4: [r2, c3, r3, a1] → r2 loses its call.
    const r = await slidingWindow({ maxMessages: 6, split: 'index' }).run(deepFreeze(chain), makeCtx());
    expect(violations(r.messages, chain)).toEqual(['result-without-call@r2']);
  });

  it('keeps every pair together with the pairing-safe split', async () => {
    const r = await slidingWindow({ maxMessages: 6 }).run(deepFreeze(chain), makeCtx());
    expect(violations(r.messages, chain)).toEqual([]);
    expect(ids(r.messages).slice(-5)).toEqual(['c2', 'r2', 'c3', 'r3', 'a1']);
  });

  it('keeps pinned messages from the dropped middle after the marker', async () => {
    const input = alternating(10).map((m) => (m.id === 'm3' ? { ...m, meta: { pinned: true } } : m));
    const r = await slidingWindow({ maxMessages: 6 }).run(deepFreeze(input), makeCtx());
    expect(ids(r.messages).slice(3)).toEqual(['m3', 'm6', 'm7', 'm8', 'm9']);
    expect(r.messages[2]!.parts[0]).toMatchObject({
      text: expect.stringMatching(/^\[Summary of 3 earlier messages\]/),
    });
  });

  it('throws a config error naming the field', () => {
    expect(() => slidingWindow({ maxMessages: 1.5 })).toThrow(/sliding-window\.maxMessages/);
  });
});

describe('manualCompact', () => {
  it('replaces the history by exactly the two messages', async () => {
    const summarizer = createScriptedSummarizer({ answers: [{ summary: 'all of it' }] });
    const r = await manualCompact(deepFreeze(alternating(6)), makeCtx({ summarizer }));
    expect(r.messages.map((m) => [m.role, m.parts[0]])).toEqual([
      ['user', { type: 'text', text: '[Compacted conversation summary]\nall of it' }],
      ['assistant', { type: 'text', text: 'Understood. I have the conversation context.' }],
    ]);
    expect(summarizer.requests[0]!.purpose).toBe('manual-compact');
  });

  it('reports "Nothing to compact" on an empty history', async () => {
    const input = deepFreeze([] as Message[]);
    const r = await manualCompact(input, makeCtx());
    expect(r.messages).toBe(input);
    expect(r.report.detail).toBe('Nothing to compact');
  });

  it('leaves the history unchanged when the summarizer fails', async () => {
    const input = deepFreeze(alternating(4));
    const r = await manualCompact(
      input,
      makeCtx({ summarizer: createScriptedSummarizer({ answers: [{ error: 'x' }] }) }),
    );
    expect(r.messages).toBe(input);
    expect(r.report.status).toBe('failed');
  });
});
