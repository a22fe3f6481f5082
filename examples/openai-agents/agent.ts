/**
 * A small OpenAI Agents SDK agent with ctxkit, on a fake model (no network): the model reads a file
 * with a tool for `steps` calls, then answers. The fake model checks every input it is sent against
 * the Responses API's rules (every call answered, results right after their call, no orphan, no
 * reasoning-only turn, encrypted reasoning unchanged) and records violations.
 *
 *   npx tsx examples/openai-agents/agent.ts [contextWindow]
 *
 * test/frameworks/openai-agents-example.test.ts runs it after a long real session at 64K and 32K.
 */
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  run,
  setTracingDisabled,
  type Tool,
  tool,
  Usage,
} from '@openai/agents';
import * as z from 'zod';
import { checkInvariants, type Violation } from '../../src/core/index.ts';
import { ctxkitInputFilter, fromAgentInputItems } from '../../src/frameworks/openai-agents/index.ts';

// No traces leave the machine (the example has no network).
setTracingDisabled(true);

export class RuleCheckingModel implements Model {
  calls = 0;
  readonly violations: Violation[] = [];
  readonly inputs: AgentInputItem[][] = [];
  constructor(readonly steps: number) {}
  async getResponse(request: ModelRequest) {
    const input = typeof request.input === 'string' ? [{ role: 'user' as const, content: request.input }] : request.input;
    this.inputs.push(input);
    this.violations.push(...checkInvariants(fromAgentInputItems(input), { dialect: 'responses' }));
    const n = this.calls++;
    const output =
      n < this.steps
        ? [{ type: 'function_call' as const, callId: `step_${n}`, name: 'read_file', arguments: JSON.stringify({ path: `src/part-${n}.ts` }), status: 'completed' as const }]
        : [{ type: 'message' as const, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'Done: every part read.' }] }];
    return { usage: new Usage(), output };
  }
  // biome-ignore lint/correctness/useYield: the example runs without streaming
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the example model does not stream');
  }
}

export const readFile = tool({
  name: 'read_file',
  description: 'Read a file',
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\n${'export const x = 1;\n'.repeat(100)}`,
});

/** Runs the agent on `input`: the glue is the one `callModelInputFilter` line (`options`: e.g. `recall`). */
export function runAgent(
  model: Model,
  input: AgentInputItem[],
  contextWindow: number,
  tools: Tool[] = [readFile],
  options: Record<string, unknown> = {},
) {
  const agent = new Agent({ name: 'reader', instructions: 'You are a coding agent.', model, tools });
  return run(agent, input, {
    maxTurns: 40,
    callModelInputFilter: ctxkitInputFilter({ ...options, budget: { contextWindow } }),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const model = new RuleCheckingModel(8);
  const result = await runAgent(model, [{ role: 'user', content: 'Read every part.' }], Number(process.argv[2] ?? 32_000));
  console.log(`${model.calls} model calls, ${model.violations.length} rule violations: ${result.finalOutput}`);
}
