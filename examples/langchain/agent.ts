/**
 * A small LangChain agent with ctxkit, on a fake chat model (no network): the model reads a file with a
 * tool for `steps` steps, then answers. The fake model checks every prompt it is sent against
 * Anthropic's rules (every call answered, results right after their call, no orphan, no reasoning-only
 * turn, signatures unchanged) and records violations.
 *
 *   npx tsx examples/langchain/agent.ts [contextWindow]
 *
 * test/frameworks/langchain-example.test.ts runs it after a long real session at 64K and 32K.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { createAgent, tool } from 'langchain';
import * as z from 'zod';
import { checkInvariants, type Violation } from '../../src/core/index.ts';
import { ctxkitMiddleware, fromLangChainMessages } from '../../src/frameworks/langchain/index.ts';

/** A chat model that calls `read_file` for `steps` calls, then answers, checking each prompt. */
export class RuleCheckingModel extends BaseChatModel {
  calls = 0;
  readonly violations: Violation[] = [];
  readonly prompts: BaseMessage[][] = [];
  constructor(readonly steps: number) {
    super({});
  }
  _llmType() {
    return 'rule-checking-fake';
  }
  override bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.prompts.push(messages);
    this.violations.push(...checkInvariants(fromLangChainMessages(messages), { dialect: 'anthropic' }));
    const n = this.calls++;
    const message =
      n < this.steps
        ? new AIMessage({
            content: `Reading part ${n}.`,
            tool_calls: [{ id: `step_${n}`, name: 'read_file', args: { path: `src/part-${n}.ts` }, type: 'tool_call' }],
          })
        : new AIMessage('Done: every part read.');
    return { generations: [{ text: String(message.content), message }] };
  }
}

export const readFile = tool(async ({ path }: { path: string }) => `// ${path}\n${'export const x = 1;\n'.repeat(100)}`, {
  name: 'read_file',
  description: 'Read a file',
  schema: z.object({ path: z.string() }),
});

/** The agent: the glue is the one `middleware` line (`options`: further options, e.g. `recall`). */
export function makeAgent(
  model: BaseChatModel,
  contextWindow: number,
  tools: StructuredToolInterface[] = [readFile],
  options: Record<string, unknown> = {},
) {
  return createAgent({
    model,
    tools,
    middleware: [ctxkitMiddleware({ ...options, budget: { contextWindow } })],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const model = new RuleCheckingModel(8);
  const agent = makeAgent(model, Number(process.argv[2] ?? 32_000));
  // Each model call is three graph steps with ctxkit (model, tools, and the middleware's afterModel):
  // LangGraph's default recursionLimit (25) stops an agent at 8 tool calls.
  const out = await agent.invoke({ messages: [{ role: 'user', content: 'Read every part.' }] }, { recursionLimit: 100 });
  console.log(`${model.calls} model calls, ${model.violations.length} rule violations: ${out.messages.at(-1)?.content}`);
}
