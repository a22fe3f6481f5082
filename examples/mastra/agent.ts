/**
 * A Mastra agent whose prompt ctxkit keeps inside the window: the ctxkit part is the import and the
 * `inputProcessors` line. Run it on Mastra's own mock model (a model that reads twelve large files):
 *
 *   npx tsx examples/mastra/agent.ts
 *
 * In your project the import is `from 'ctxkit/mastra'`.
 */
import { Agent } from '@mastra/core/agent';
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock';
import { createTool } from '@mastra/core/tools';
import * as z from 'zod';

type LanguageModelV2 = Extract<ConstructorParameters<typeof Agent>[0]['model'], { specificationVersion: 'v2' }>;
import { type CtxkitMastraOptions, ctxkitProcessor } from '../../src/frameworks/mastra/index.ts';

/** `ctxkit`: further options (summarizer, preset…); the window is all most agents give. */
export function createAgent(
  model: ConstructorParameters<typeof Agent>[0]['model'],
  tools: ConstructorParameters<typeof Agent>[0]['tools'],
  contextWindow: number,
  ctxkit: Partial<CtxkitMastraOptions> = {},
) {
  return new Agent({
    id: 'reader',
    name: 'reader',
    instructions: 'You read files and summarise them.',
    model,
    ...(tools ? { tools } : {}),
    inputProcessors: [ctxkitProcessor({ ...ctxkit, contextWindow })],
  });
}

const usage = { inputTokens: 0, outputTokens: 1, totalTokens: 1 };

/** Mastra's mock model: one `read` call per step for twelve steps, then an answer. */
function mockModel() {
  let step = 0;
  return new MastraLanguageModelV2Mock({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }: { prompt: unknown[] }) => {
      step++;
      console.log(`model call ${step}: ${prompt.length} messages, ${JSON.stringify(prompt).length} characters`);
      const content =
        step > 12
          ? [{ type: 'text', text: 'Read all twelve files.' }]
          : [{ type: 'tool-call', toolCallId: `call_${step}`, toolName: 'read', input: JSON.stringify({ path: `src/file-${step}.ts` }) }];
      return { content, finishReason: step > 12 ? 'stop' : 'tool-calls', usage, warnings: [] };
    },
  } as ConstructorParameters<typeof MastraLanguageModelV2Mock>[0]);
}

const read = createTool({
  id: 'read',
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\n${'export const value = compute(input, options);\n'.repeat(500)}`,
});

if (import.meta.url === `file://${process.argv[1]}`) {
  const agent = createAgent(mockModel() as unknown as LanguageModelV2, { read }, 32_000);
  const result = await agent.generate('Read the twelve source files and summarise them.', { maxSteps: 20 });
  console.log(`${result.steps.length} steps: ${result.text}`);
}
