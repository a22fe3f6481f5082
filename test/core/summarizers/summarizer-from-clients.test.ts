/**
 * `summarizerFrom` over the model clients users already have, written as docs/providers.md shows:
 * the AI SDK's `generateText` (on its `MockLanguageModelV3`) and a LangChain chat model's `invoke`
 * (`FakeListChatModel`). No network; the point is that the call shape plugs in as documented.
 */
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { user } from '../../../src/core/messages/builders.ts';
import type { SummarizeRequest } from '../../../src/core/ports.ts';
import { KOSMOKRATOR_SYSTEM_PROMPT } from '../../../src/core/summarizers/prompts/kosmokrator.ts';
import { summarizerFrom } from '../../../src/core/summarizers/summarizer-from.ts';

const request: SummarizeRequest = {
  purpose: 'compaction',
  preset: 'default',
  messages: [user('we chose Postgres for the store')],
};
const answer = '{"summary": "## Goal\\nStore on Postgres", "memories": []}';

describe('summarizerFrom', () => {
  it('summarizes through the AI SDK generateText with its usage when wrapped as documented', async () => {
    const seen: Array<{ prompt: unknown; maxOutputTokens: unknown }> = [];
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt, maxOutputTokens }) => {
        seen.push({ prompt, maxOutputTokens });
        return {
          content: [{ type: 'text' as const, text: answer }],
          finishReason: { unified: 'stop' as const, raw: undefined },
          usage: {
            inputTokens: { total: 321, noCache: 321, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 12, text: 12, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const summarizer = summarizerFrom(
      async ({ system, prompt, maxOutputTokens, temperature, signal }) => {
        const { text, usage } = await generateText({
          model,
          system,
          prompt,
          maxOutputTokens,
          ...(temperature !== undefined ? { temperature } : {}),
          ...(signal ? { abortSignal: signal } : {}),
        });
        return { text, usage };
      },
      { name: 'ai-sdk', model: 'mock' },
    );
    const result = await summarizer.summarize(request);
    expect([result.summary, result.model, result.usage]).toEqual([
      '## Goal\nStore on Postgres',
      'mock',
      { inputTokens: 321, outputTokens: 12 },
    ]);
    expect(seen[0]!.maxOutputTokens).toBe(4096);
    expect(JSON.stringify(seen[0]!.prompt)).toContain('we chose Postgres for the store');
    expect((seen[0]!.prompt as Array<{ role: string; content: unknown }>)[0]).toEqual({
      role: 'system',
      content: KOSMOKRATOR_SYSTEM_PROMPT,
    });
  });

  it('summarizes through a LangChain chat model invoke when wrapped as documented', async () => {
    const model = new FakeListChatModel({ responses: [answer] });
    const summarizer = summarizerFrom(
      async ({ system, prompt, signal }) => {
        const reply = await model.invoke(
          [
            { role: 'system', content: system },
            { role: 'user', content: prompt },
          ],
          signal ? { signal } : {},
        );
        return reply.text;
      },
      { name: 'langchain' },
    );
    expect((await summarizer.summarize(request)).summary).toBe('## Goal\nStore on Postgres');
  });
});
