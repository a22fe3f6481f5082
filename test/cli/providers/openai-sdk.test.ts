/**
 * ctxkit/providers without the optional `openai` SDK: the import of `openai` fails here (as in a
 * project that does not install it); prompts, parsers and retry arithmetic still work, and only the
 * SDK-backed summarizer and embedder fail, on first use, with an error naming the package.
 * (test/package/consumer.test.ts checks the same on the packed tarball without `openai` installed.)
 */
import { describe, expect, it, vi } from 'vitest';
import { isCtxError, type SummarizeRequest, user } from '../../../src/core/index.ts';
import {
  backoffDelay,
  buildPrompt,
  createOpenAISummarizer,
  isRetryable,
  loadedOpenAI,
  loadOpenAI,
  openAIEmbedder,
  parseKosmokratorAnswer,
  withFallback,
} from '../../../src/providers/index.ts';

vi.mock('openai', () => {
  throw new Error("Cannot find package 'openai' imported from /project/node_modules/ctxkit/dist");
});

const request: SummarizeRequest = {
  purpose: 'compaction',
  preset: 'kosmokrator',
  messages: [user('we chose Postgres')],
};

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('loadOpenAI', () => {
  it('throws CtxError unsupported naming openai and the install command when openai is missing', async () => {
    const error = await rejection(loadOpenAI('createOpenAISummarizer'));
    expect(isCtxError(error, 'unsupported')).toBe(true);
    // (vitest wraps the failed import in its own message; Node's names the package, see the consumer test)
    expect((error as Error).message).toMatch(
      /^createOpenAISummarizer needs the optional package openai \(npm install openai\): ./,
    );
    expect(loadedOpenAI()).toBeUndefined();
  });
});

describe('ctxkit/providers without openai', () => {
  it('builds prompts, parses answers and computes backoff when openai is missing', () => {
    expect(buildPrompt(request).family).toBe('kosmokrator');
    expect(parseKosmokratorAnswer('{"summary": "s", "memories": []}')).toEqual({
      summary: 's',
      memories: [],
    });
    expect(backoffDelay(1, { initialDelayMs: 100, maxDelayMs: 1000, random: () => 0 })).toBe(200);
    expect(isRetryable(new Error('x'))).toBe(false);
  });

  it('creates the summarizer and fails its first summarize with the package named when openai is missing', async () => {
    const summarizer = createOpenAISummarizer({ model: 'm' });
    expect(summarizer.name).toBe('openai');
    const error = await rejection(summarizer.summarize(request));
    expect(isCtxError(error, 'unsupported')).toBe(true);
    expect((error as Error).message).toContain('createOpenAISummarizer needs the optional package openai');
  });

  it('fails the embedder on first embed with the package named when openai is missing', async () => {
    const embedder = openAIEmbedder({ apiKey: 'k' });
    expect(embedder.dimensions).toBe(1536);
    const error = await rejection(embedder.embed(['a']));
    expect((error as Error).message).toContain('openAIEmbedder needs the optional package openai');
  });

  it('embeds through a client the caller passes when openai is missing', async () => {
    const client = {
      embeddings: {
        create: async ({ input }: { input: string[] }) => ({
          data: input.map((_, index) => ({ index, embedding: [index] })).reverse(),
        }),
      },
    };
    const embedder = openAIEmbedder({ client: client as never, batchSize: 2 });
    expect(await embedder.embed(['a', 'b', 'c'])).toEqual([[0], [1], [0]]);
  });

  it('answers with the fallback and keeps the reason when the SDK summarizer cannot load', async () => {
    const fallback = {
      name: 'offline',
      summarize: async () => ({ summary: 'offline summary' }),
    };
    const result = await withFallback(createOpenAISummarizer({ model: 'm' }), fallback).summarize(request);
    expect(result.summary).toBe('offline summary');
    expect(result.fallback).toContain('needs the optional package openai');
  });
});
