import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../../src/core/errors.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import { PRESET_NAMES } from '../../../src/core/pipeline/presets/presets.ts';
import { fixedClock, sequentialIds } from '../../../src/core/ports.ts';

function small(): Message[] {
  return [
    user('read the file', { id: 'u1' }),
    assistant('', [toolCall('c1', 'file_read', { path: 'a.ts' })], { id: 'a1' }),
    toolResult('c1', 'file_read', 'const a = 1;', { id: 't1' }),
    assistant('done', [], { id: 'a2' }),
    user('thanks', { id: 'u2' }),
  ];
}

const env = () => ({ clock: fixedClock('2026-01-01T00:00:00Z'), ids: sequentialIds() });

describe('createPipeline', () => {
  it.each(PRESET_NAMES)(
    'returns the input itself with noop or skipped reports when %s has nothing to do',
    async (preset) => {
      const messages = small();
      const run = await createPipeline({ preset, ...env() }).prepare({ messages });
      expect(run.messages).toBe(messages);
      expect(run.reports.every((r) => r.status === 'noop' || r.status === 'skipped')).toBe(true);
      expect(run.journal).toEqual([]);
    },
  );

  it('throws a CtxError naming the key when config has an unknown section', () => {
    let error: unknown;
    try {
      createPipeline({ preset: 'co-cli', config: { pruning: {} } });
    } catch (e) {
      error = e;
    }
    expect(isCtxError(error, 'invalid_config')).toBe(true);
    expect(String(error)).toMatch(/pruning/);
  });

  it('throws a CtxError naming preset when the preset is unknown', () => {
    expect(() => createPipeline({ preset: 'gpt' as never })).toThrow(/^preset: /);
  });

  it('throws a CtxError naming the budget field when a buffer is negative', () => {
    expect(() => createPipeline({ budget: { warningBuffer: -1 } })).toThrow(/budget\.warningBuffer/);
  });

  it('throws a CtxError naming the field when a stage option is invalid', () => {
    expect(() =>
      createPipeline({ preset: 'co-cli', config: { slidingWindow: { maxMessages: 'x' as never } } }),
    ).toThrow(/sliding-window.maxMessages/);
  });

  it('throws a CtxError naming the message when the input is malformed', async () => {
    const bad = [{ id: 'x', role: 'robot', parts: [] }] as unknown as Message[];
    await expect(createPipeline(env()).prepare({ messages: bad })).rejects.toThrow(/messages\[0\]/);
  });

  it('reports the level of the estimate when the budget is small', () => {
    const p = createPipeline({
      preset: 'kosmokrator',
      budget: {
        contextWindow: 1000,
        reserveOutput: 0,
        warningBuffer: 990,
        autoCompactBuffer: 500,
        blockingBuffer: 100,
      },
    });
    expect(p.estimate({ messages: small() }).level).toBe('warn');
  });
});
