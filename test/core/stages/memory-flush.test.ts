import { describe, expect, it } from 'vitest';
import { assistant, user } from '../../../src/core/messages/builders.ts';
import { injectionText } from '../../../src/core/pipeline/presets/cowagent/apply-pending-injections.ts';
import { cowagentTrim } from '../../../src/core/pipeline/presets/cowagent/cowagent-trim.ts';
import {
  FLUSHED_LIMIT,
  flushKey,
  flushToMemory,
  recordFlushed,
  unflushedMessages,
} from '../../../src/core/pipeline/presets/cowagent/memory-flush.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';
import { conversation, deepFreeze, makeCtx, withState } from './compaction-helpers.ts';

describe('flush de-duplication (000 §2.3)', () => {
  it('keys a text by the first 16 hex digits of its SHA-256, ignoring an injected summary', async () => {
    const key = await flushKey('question 3');
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(await flushKey('question 3 ')).not.toBe(key);
    const injected = injectionText({
      targetId: 'u3',
      originalText: 'question 3',
      turnsCompacted: 2,
      summary: 'earlier turns',
    });
    expect(await flushKey(injected)).toBe(key);
  });

  it('leaves out empty texts, texts already flushed, and repeats within the batch', async () => {
    const flushed = [await flushKey('old')];
    const { fresh, keys, repeated } = await unflushedMessages(
      [
        user('old', { id: 'a' }),
        user('new', { id: 'b' }),
        assistant('', [], { id: 'c' }),
        user('new', { id: 'd' }),
      ],
      flushed,
    );
    expect(fresh.map((m) => m.id)).toEqual(['b']);
    expect(keys).toEqual([await flushKey('new')]);
    expect(repeated).toBe(2);
  });

  it('keeps the newest FLUSHED_LIMIT keys', () => {
    const many = Array.from({ length: FLUSHED_LIMIT }, (_, i) => `k${i}`);
    const next = recordFlushed(many, ['new1', 'new2']);
    expect(next).toHaveLength(FLUSHED_LIMIT);
    expect(next.at(-1)).toBe('new2');
    expect(next[0]).toBe('k2');
  });

  it('makes no summarizer call and returns no flush when every text was flushed before', async () => {
    const summarizer = createScriptedSummarizer();
    const messages = [user('q1', { id: 'u1' }), assistant('a1', [], { id: 'a1' })];
    const flushed = [await flushKey('q1'), await flushKey('a1')];
    const attempt = await flushToMemory(messages, withState(makeCtx({ summarizer }), { flushed }), 'trim');
    expect(attempt.outcome).toBeUndefined();
    expect(attempt.flushed).toEqual(flushed);
    expect(attempt.repeated).toBe(2);
    expect(summarizer.requests).toHaveLength(0);
  });

  it('a trim sends only the new texts to the summarizer and records them in the state', async () => {
    const input = deepFreeze(conversation(21));
    // Turns 1–5 were flushed before (an overflow, the daily summary…).
    const before: string[] = [];
    for (const m of input.slice(0, 10))
      before.push(await flushKey(m.parts[0]!.type === 'text' ? m.parts[0]!.text : ''));
    const summarizer = createScriptedSummarizer({ answers: [{ summary: 'turns 6 to 10' }] });
    const r = await cowagentTrim().run(input, withState(makeCtx({ summarizer }), { flushed: before }));
    expect(summarizer.requests).toHaveLength(1);
    const sent = summarizer.requests[0]!.messages.map((m) => m.id);
    expect(sent[0]).toBe('u6');
    expect(sent).not.toContain('u1');
    expect(sent).toHaveLength(10);
    expect(r.state!.flushed).toHaveLength(20);
    expect(r.state!.flushed!.slice(0, 10)).toEqual(before);
    expect(r.report.detail).toContain('10 text(s) already flushed');
    expect(r.state!.pendingInjections).toHaveLength(1);
  });

  it('a trim of texts that were all flushed drops them without a summary injection', async () => {
    const input = deepFreeze(conversation(21));
    const all: string[] = [];
    for (const m of input) all.push(await flushKey(m.parts[0]!.type === 'text' ? m.parts[0]!.text : ''));
    const summarizer = createScriptedSummarizer();
    const r = await cowagentTrim().run(input, withState(makeCtx({ summarizer }), { flushed: all }));
    expect(r.report.status).toBe('applied');
    expect(r.messages[0]!.id).toBe('u11');
    expect(summarizer.requests).toHaveLength(0);
    expect(r.state!.pendingInjections).toEqual([]);
    expect(r.events.map((e) => e.type)).toEqual(['compaction-start', 'compaction-end']);
    expect(r.journal.every((j) => j.action === 'removed')).toBe(true);
    expect(r.flushes).toBeUndefined();
  });
});
