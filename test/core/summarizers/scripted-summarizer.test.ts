import { describe, expect, it } from 'vitest';
import { user } from '../../../src/core/messages/builders.ts';
import { createScriptedSummarizer } from '../../../src/core/summarizers/scripted-summarizer.ts';

const req = { purpose: 'compaction' as const, preset: 'default', messages: [user('x')] };

describe('createScriptedSummarizer', () => {
  it('answers from the queue in order and records the requests', async () => {
    const s = createScriptedSummarizer({
      answers: [{ summary: 'a' }, { error: 'boom' }, { delayMs: 1 }, { summary: 'c' }],
    });
    expect((await s.summarize(req)).summary).toBe('a');
    await expect(s.summarize(req)).rejects.toThrow('boom');
    expect((await s.summarize(req)).summary).toBe('c');
    expect(s.requests).toHaveLength(3);
    expect(s.remaining()).toBe(0);
  });

  it('throws when the queue is empty and there is no fallback', async () => {
    await expect(createScriptedSummarizer().summarize(req)).rejects.toThrow(/no answer left/);
  });

  it('honours an abort signal while delaying', async () => {
    const s = createScriptedSummarizer({ answers: [{ delayMs: 10_000 }, { summary: 'late' }] });
    const controller = new AbortController();
    const pending = s.summarize({ ...req, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow('aborted');
  });
});
