import { jsonSchema, type ModelMessage, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from '../../examples/ai-sdk/agent.ts';
import { ctxkitRecallTools, fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { recallProofSuite } from './support/recall-proof.ts';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

recallProofSuite('ai-sdk', ctxkitRecallTools, async (proof, window) => {
  const { replay, recall } = proof;
  let n = 0;
  const model = new MockLanguageModelV3({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }) => {
      const call = proof.step(fromModelMessages(prompt as unknown as ModelMessage[]));
      const content = call
        ? [
            {
              type: 'tool-call' as const,
              toolCallId: `recall_${n++}`,
              toolName: call.tool,
              input: JSON.stringify(call.args),
            },
          ]
        : [{ type: 'text' as const, text: 'done' }];
      return {
        content,
        finishReason: { unified: call ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
  const own: ToolSet = Object.fromEntries(
    replay.tools.map((name) => [
      name,
      tool({ inputSchema: jsonSchema({ type: 'object' }), execute: async () => '' }),
    ]),
  );
  const agent = createAgent(model, { ...own, ...(await ctxkitRecallTools(recall)) }, window, { recall }, 60);
  await agent.generate({ messages: toModelMessages([...replay.history, replay.prompt]) });
});
