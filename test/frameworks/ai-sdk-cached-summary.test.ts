/**
 * A summary asked on the cached prefix inside the AI SDK (`summarizerFrom(fn, { prefix: 'cached' })`):
 * the example agent on the SDK's own mock model, with a summarizer that sends the call through the
 * same model with the agent's tools. The provider caches the prompt it last got; the summary call must
 * start with exactly that prompt, as the SDK hands it to the model.
 */
import { generateText, jsonSchema, type ModelMessage, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../examples/ai-sdk/agent.ts';
import { summarizerFrom } from '../../src/core/index.ts';
import { toModelMessages } from '../../src/frameworks/ai-sdk/index.ts';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
const INSTRUCTION = /^The conversation above is being compacted\./;

interface Call {
  prompt: unknown[];
  tools: unknown;
  summary: boolean;
}

function lastUserText(prompt: readonly { role: string; content: unknown }[]): string {
  const last = prompt.at(-1);
  if (last?.role !== 'user' || !Array.isArray(last.content)) return '';
  const part = last.content[0] as { type?: string; text?: string } | undefined;
  return part?.type === 'text' ? (part.text ?? '') : '';
}

describe('summarizerFrom with prefix: cached, inside an AI SDK agent', () => {
  it('asks for the summary with exactly the prompt the model got last, then the instruction', async () => {
    const calls: Call[] = [];
    let step = 0;
    const model = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      doGenerate: async ({ prompt, tools }) => {
        const summary = INSTRUCTION.test(lastUserText(prompt));
        calls.push({ prompt, tools, summary });
        if (summary)
          return {
            content: [{ type: 'text', text: '{"summary": "## Goal\\nRead the files", "memories": []}' }],
            finishReason: { unified: 'stop', raw: undefined },
            usage,
            warnings: [],
          };
        step++;
        const content =
          step <= 30
            ? [
                {
                  type: 'tool-call' as const,
                  toolCallId: `call_${step}`,
                  toolName: 'read',
                  input: JSON.stringify({ path: `src/file-${step}.ts` }),
                },
              ]
            : [{ type: 'text' as const, text: 'Read all the files.' }];
        return {
          content,
          finishReason: { unified: step <= 30 ? 'tool-calls' : 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const tools = {
      read: tool({
        description: 'Read a file',
        inputSchema: jsonSchema<{ path: string }>({
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        }),
        execute: async ({ path }) =>
          `// ${path}\n${'export const value = compute(input, options);\n'.repeat(300)}`,
      }),
    };
    const summarizer = summarizerFrom(
      async (call) => {
        const messages: ModelMessage[] = call.sent
          ? [...toModelMessages(call.sent.messages), { role: 'user', content: call.instruction! }]
          : [{ role: 'user', content: call.prompt }];
        const { text } = await generateText({ model, messages, tools, toolChoice: 'none' });
        return text;
      },
      { name: 'agent-model', prefix: 'cached' },
    );
    let compactions = 0;
    const agent = createAgent(model, tools, 16_000, {
      summarizer,
      onRun: (r) => {
        if (r.reports.some((x) => x.stage === 'compaction' && x.status === 'applied')) compactions++;
      },
    });
    const result = await agent.generate({ prompt: 'Read the twelve source files and summarise them.' });
    expect(result.text).toBe('Read all the files.');

    const summaries = calls.flatMap((c, i) => (c.summary ? [i] : []));
    // Thirty reads overflow 16K: each compaction is one summary call, asked on the cached prefix.
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.length).toBe(compactions);
    for (const i of summaries) {
      const before = calls
        .slice(0, i)
        .filter((c) => !c.summary)
        .at(-1)!;
      const asked = calls[i]!;
      // Byte for byte, the prompt the provider cached, then one user message.
      expect(asked.prompt).toHaveLength(before.prompt.length + 1);
      expect(JSON.stringify(asked.prompt.slice(0, before.prompt.length))).toBe(JSON.stringify(before.prompt));
      expect(JSON.stringify(asked.tools)).toBe(JSON.stringify(before.tools));
    }
  });
});
