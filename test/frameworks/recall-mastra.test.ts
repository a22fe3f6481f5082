import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createAgent } from '../../examples/mastra/agent.ts';
import { RECALL_TOOL_DEFINITIONS } from '../../src/core/index.ts';
import { fromModelMessages, toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';
import { ctxkitRecallTools } from '../../src/frameworks/mastra/index.ts';
import { expectAllFacts, RECALL_WINDOWS, recallProof } from './support/recall-proof.ts';
import { HAVE_DATA, NO_DATA } from './support/replay.ts';

const usage = { inputTokens: 0, outputTokens: 1, totalTokens: 1 };
type Model = Parameters<typeof createAgent>[0];

describe('ctxkitRecallTools (mastra, examples/mastra)', () => {
  it('rejects a tool set without the archive the processor writes to', () => {
    expect(() => ctxkitRecallTools({} as never)).toThrow(/recall\.archive/);
  });

  it.skipIf(!HAVE_DATA).each(RECALL_WINDOWS)(
    'gets all ten early facts of a real session back through recall and reread after compaction at %i, every prompt within the window',
    async (window) => {
      const proof = recallProof(() => JSON.stringify(Object.values(RECALL_TOOL_DEFINITIONS)));
      const { replay, archive } = proof;
      let n = 0;
      const model = new MastraLanguageModelV2Mock({
        provider: 'anthropic.messages',
        doGenerate: async ({ prompt }: { prompt: unknown[] }) => {
          const call = proof.step(fromModelMessages(prompt as ModelMessage[]));
          if (!call)
            return { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] };
          const content = [
            {
              type: 'tool-call',
              toolCallId: `recall_${n++}`,
              toolName: call.tool,
              input: JSON.stringify(call.args),
            },
          ];
          return { content, finishReason: 'tool-calls', usage, warnings: [] };
        },
      } as ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]);
      // The session's own tools stay defined (its history calls them); the model calls only the recall tools.
      const own = Object.fromEntries(
        replay.tools.map((name) => [
          name,
          createTool({
            id: name,
            description: name,
            inputSchema: z.looseObject({}),
            execute: async () => '',
          }),
        ]),
      );
      const agent = createAgent(
        model as unknown as Model,
        { ...own, ...ctxkitRecallTools({ archive }) },
        window,
        {
          recall: { archive },
        },
      );
      const history = toModelMessages(replay.history);
      const promptText = replay.prompt.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
      await agent.generate([...history, { role: 'user', content: promptText }], { maxSteps: 60 });
      expectAllFacts(proof, window);
    },
  );
  if (!HAVE_DATA) it.skip(NO_DATA, () => {});
});
