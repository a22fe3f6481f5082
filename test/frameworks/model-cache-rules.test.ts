/**
 * Each framework entry prices a send with the prompt-cache rules of the model it is about to call:
 * the LangChain middleware reads the chat model's `model` field, the Agents SDK filter the agent's
 * `model` name; the context's `model` option stands in where the hook is handed none.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { PipelineRun } from '../../src/core/index.ts';
import { ctxkitMiddleware } from '../../src/frameworks/langchain/index.ts';
import { ctxkitInputFilter } from '../../src/frameworks/openai-agents/index.ts';
import { modelCall } from '../../src/frameworks/options.ts';

const rulesOf = (runs: PipelineRun[]) => runs.map((r) => [r.cache.rules.write, r.cache.rules.minPrefix]);

describe('the model a hook calls picks its cache rules', () => {
  it('reads a name, a modelId, a model or a modelName, and nothing else', () => {
    expect(modelCall('gpt-5.6')).toEqual({ model: 'gpt-5.6' });
    expect(modelCall({ provider: 'openai.chat', modelId: 'gpt-5.6' })).toEqual({ model: 'gpt-5.6' });
    expect(modelCall({ model: 'claude-haiku-4-5' })).toEqual({ model: 'claude-haiku-4-5' });
    expect(modelCall({ modelName: 'gpt-4o' })).toEqual({ model: 'gpt-4o' });
    for (const none of [undefined, '', 42, {}, { model: 7 }, 'm'.repeat(257)])
      expect(modelCall(none)).toEqual({});
  });

  it('LangChain: the chat model’s name, else the option', async () => {
    const runs: PipelineRun[] = [];
    const mw = ctxkitMiddleware({
      contextWindow: 200_000,
      model: 'claude-sonnet-4-6',
      onRun: (r) => runs.push(r),
    });
    for (const model of [{ model: 'claude-haiku-4-5' }, {}])
      await mw.wrapModelCall!(
        { messages: [new HumanMessage('hi')], systemPrompt: '', model } as never,
        () => new AIMessage('ok'),
      );
    // The entry's dialect is Anthropic's: Haiku 4.5 caches from 4,096 tokens, the option's Sonnet 4.6 from 2,048.
    expect(rulesOf(runs)).toEqual([
      [1.25, 4096],
      [1.25, 2048],
    ]);
  });

  it('Agents SDK: the agent’s model name', async () => {
    const runs: PipelineRun[] = [];
    const filter = ctxkitInputFilter({ contextWindow: 200_000, onRun: (r) => runs.push(r) });
    for (const model of ['gpt-5.6', 'gpt-5'])
      await filter({
        modelData: { input: [{ role: 'user', content: `hi ${model}` }], instructions: 'Be brief.' },
        agent: { model } as never,
        context: undefined,
      });
    expect(rulesOf(runs)).toEqual([
      [1.25, 1024],
      [1, 1024],
    ]);
  });
});
