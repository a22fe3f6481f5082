import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../src/core/index.ts';
import { type AiBinding, createWorkersAiEmbedder, withVectors } from '../../src/worker/embedder.ts';

function fakeAi(dims: number, calls: string[][] = []): AiBinding {
  return {
    async run(_model, input) {
      calls.push(input.text);
      return {
        shape: [input.text.length, dims],
        data: input.text.map((t) => Array.from({ length: dims }, (_, i) => (i === 0 ? t.length : 0))),
      };
    },
  };
}

describe('createWorkersAiEmbedder', () => {
  it('embeds in batches of 50 with the model id stored beside each vector', async () => {
    const calls: string[][] = [];
    const e = createWorkersAiEmbedder(fakeAi(384, calls));
    const out = await e.embed(Array.from({ length: 120 }, (_, i) => 'x'.repeat(i + 1)));
    expect([e.modelId, e.dimensions, out.length, calls.map((c) => c.length)]).toEqual([
      'workers-ai:@cf/baai/bge-small-en-v1.5',
      384,
      120,
      [50, 50, 20],
    ]);
    expect(out[119]![0]).toBe(120);
  });

  it('throws when the answer has the wrong shape', async () => {
    await expect(createWorkersAiEmbedder(fakeAi(10)).embed(['a'])).rejects.toThrow(/384 numbers/);
  });

  it('rejects naming the model when the binding does not answer within the timeout', async () => {
    const stalled: AiBinding = { run: () => new Promise(() => undefined) };
    await expect(createWorkersAiEmbedder(stalled, undefined, 20).embed(['a'])).rejects.toThrow(
      'Workers AI @cf/baai/bge-small-en-v1.5 did not answer within 20 ms',
    );
  });

  it('refuses an unknown model naming the variable', () => {
    try {
      createWorkersAiEmbedder(fakeAi(3), '@cf/nope');
      expect.unreachable();
    } catch (error) {
      expect(isCtxError(error, 'invalid_config') && error.path).toBe('EMBEDDING_MODEL');
    }
  });
});

describe('withVectors', () => {
  it('writes again without the embedder when embedding fails', async () => {
    const broken = createWorkersAiEmbedder({ run: async () => Promise.reject(new Error('AI down')) });
    const seen: Array<string | undefined> = [];
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      const result = await withVectors(broken, async (e) => {
        seen.push(e?.modelId);
        if (e) await e.embed(['x']);
        return 'stored';
      });
      expect([result, seen]).toEqual(['stored', ['workers-ai:@cf/baai/bge-small-en-v1.5', undefined]]);
    } finally {
      console.warn = warn;
    }
  });

  it('writes without vectors when the binding stalls past the timeout', async () => {
    const stalled = createWorkersAiEmbedder({ run: () => new Promise(() => undefined) }, undefined, 20);
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      const seen: Array<string | undefined> = [];
      const result = await withVectors(stalled, async (e) => {
        seen.push(e?.modelId);
        return e ? (await e.embed(['x'])).length : 0;
      });
      expect([result, seen]).toEqual([0, ['workers-ai:@cf/baai/bge-small-en-v1.5', undefined]]);
    } finally {
      console.warn = warn;
    }
  });
});
