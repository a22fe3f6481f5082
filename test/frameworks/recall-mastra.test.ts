import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import type { ModelMessage } from 'ai';
import * as z from 'zod';
import { createAgent } from '../../examples/mastra/agent.ts';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitRecallTools } from '../../src/frameworks/mastra/index.ts';
import { recallProofSuite } from './support/recall-proof.ts';

const usage = { inputTokens: 0, outputTokens: 1, totalTokens: 1 };
type Model = Parameters<typeof createAgent>[0];

recallProofSuite('mastra', ctxkitRecallTools, async (proof, window) => {
  const { replay, recall } = proof;
  let n = 0;
  const model = new MastraLanguageModelV2Mock({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }: { prompt: unknown[] }) => {
      const call = proof.step(fromModelMessages(prompt as ModelMessage[]));
      const content = call
        ? [
            {
              type: 'tool-call',
              toolCallId: `recall_${n++}`,
              toolName: call.tool,
              input: JSON.stringify(call.args),
            },
          ]
        : [{ type: 'text', text: 'done' }];
      return { content, finishReason: call ? 'tool-calls' : 'stop', usage, warnings: [] };
    },
  } as ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]);
  // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
  const own = Object.fromEntries(
    replay.tools.map((id) => [
      id,
      createTool({ id, description: id, inputSchema: z.looseObject({}), execute: async () => '' }),
    ]),
  );
  const tools = { ...own, ...(await ctxkitRecallTools(recall)) };
  const agent = createAgent(model as unknown as Model, tools, window, { recall });
  const promptText = replay.prompt.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  await agent.generate([...toModelMessages(replay.history), { role: 'user', content: promptText }], {
    maxSteps: 60,
  });
});
