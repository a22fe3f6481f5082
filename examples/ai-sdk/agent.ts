/**
 * A Vercel AI SDK agent whose context ctxkit keeps inside the window: the ctxkit part is the import and
 * the `prepareStep` line. Run it on the SDK's own mock model (a model that reads twelve large files):
 *
 *   npx tsx examples/ai-sdk/agent.ts
 *
 * In your project the import is `from 'ctxkit/ai-sdk'`.
 */
import { jsonSchema, type LanguageModel, stepCountIs, ToolLoopAgent, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { type CtxkitAiSdkOptions, ctxkitPrepareStep } from '../../src/frameworks/ai-sdk/index.ts';

/** `ctxkit`: further options (summarizer, preset…); the window is all most agents give. */
export function createAgent(
  model: LanguageModel,
  tools: ToolSet,
  contextWindow: number,
  ctxkit: Partial<CtxkitAiSdkOptions> = {},
  maxSteps = 50,
) {
  return new ToolLoopAgent({
    model,
    tools,
    stopWhen: stepCountIs(maxSteps),
    prepareStep: ctxkitPrepareStep({ ...ctxkit, contextWindow }),
  });
}

/** The SDK's mock model: one `read` call per step for twelve steps, then an answer. */
function mockModel(): MockLanguageModelV3 {
  let step = 0;
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } };
  return new MockLanguageModelV3({
    provider: 'anthropic.messages',
    doGenerate: async ({ prompt }) => {
      step++;
      const chars = prompt.reduce((n, m) => n + JSON.stringify(m.content).length, 0);
      console.log(`model call ${step}: ${prompt.length} messages, ${chars} characters`);
      const content =
        step <= 12
          ? [{ type: 'tool-call' as const, toolCallId: `call_${step}`, toolName: 'read', input: JSON.stringify({ path: `src/file-${step}.ts` }) }]
          : [{ type: 'text' as const, text: 'Read all twelve files.' }];
      return { content, finishReason: { unified: step <= 12 ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
}

const tools = {
  read: tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => `// ${path}\n${'export const value = compute(input, options);\n'.repeat(500)}`,
  }),
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const agent = createAgent(mockModel(), tools, 32_000);
  const result = await agent.generate({ prompt: 'Read the twelve source files and summarise them.' });
  console.log(`${result.steps.length} steps: ${result.text}`);
}
