import { jsonSchema, type ModelMessage, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../examples/ai-sdk/agent.ts';
import { RECALL_TOOL_DEFINITIONS } from '../../src/core/index.ts';
import { ctxkitRecallTools, fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { expectAllFacts, RECALL_WINDOWS, recallProof } from './support/recall-proof.ts';
import { HAVE_DATA, NO_DATA } from './support/replay.ts';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

describe('ctxkitRecallTools (ai-sdk, examples/ai-sdk)', () => {
  it('rejects a tool set without the archive the entry writes to', () => {
    expect(() => ctxkitRecallTools({} as never)).toThrow(/recall\.archive/);
  });

  it.skipIf(!HAVE_DATA).each(RECALL_WINDOWS)(
    'gets all ten early facts of a real session back through recall and reread after compaction at %i, every prompt within the window',
    async (window) => {
      const proof = recallProof(() => JSON.stringify(Object.values(RECALL_TOOL_DEFINITIONS)));
      const { replay, archive } = proof;
      let n = 0;
      const model = new MockLanguageModelV3({
        provider: 'anthropic.messages',
        doGenerate: async ({ prompt }) => {
          const call = proof.step(fromModelMessages(prompt as unknown as ModelMessage[]));
          if (!call)
            return {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage,
              warnings: [],
            };
          const content = [
            {
              type: 'tool-call' as const,
              toolCallId: `recall_${n++}`,
              toolName: call.tool,
              input: JSON.stringify(call.args),
            },
          ];
          return { content, finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
        },
      });
      // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
      const own: ToolSet = Object.fromEntries(
        replay.tools.map((name) => [
          name,
          tool({ inputSchema: jsonSchema({ type: 'object' }), execute: async () => '' }),
        ]),
      );
      const agent = createAgent(
        model,
        { ...own, ...ctxkitRecallTools({ archive }) },
        window,
        { recall: { archive } },
        60,
      );
      const history = toModelMessages([...replay.history, replay.prompt]);
      await agent.generate({ messages: history });

      expectAllFacts(proof, window);
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
