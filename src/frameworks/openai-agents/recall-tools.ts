/**
 * `ctxkitRecallTools(recall)`: the recall tools as Agents SDK function tools, over the `createRecall()`
 * given to the entry's `recall` option (`ctxkitInputFilter` or `ctxkitSession`):
 *
 *   const recall = createRecall();
 *   const agent = new Agent({ name, tools: [...tools, ...(await ctxkitRecallTools(recall))] });
 *   await run(agent, input, { callModelInputFilter: ctxkitInputFilter({ contextWindow: 200_000, recall }) });
 *
 * Async: the framework is imported when the tool set is made, so the entry loads without it.
 */
import type { FunctionTool } from '@openai/agents';
import { checkRecall, type Recall } from '../../core/index.ts';

export async function ctxkitRecallTools(recall: Recall): Promise<FunctionTool[]> {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  // Loaded when asked: the entry itself loads without the framework (it imports its types only).
  const { tool } = await import('@openai/agents');
  return tools.definitions.map((d) =>
    tool({
      name: d.name,
      description: d.description,
      // Optional arguments (limit, offset): the schema is not a strict one.
      parameters: d.parameters as never,
      strict: false,
      execute: (input: unknown) => tools.call(d.name, input),
    }),
  ) as FunctionTool[];
}
