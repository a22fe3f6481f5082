/**
 * `ctxkitRecallTools(recall)`: the recall tools as Agents SDK function tools, over the `createRecall()`
 * given to the entry's `recall` option (`ctxkitInputFilter` or `ctxkitSession`):
 *
 *   const recall = createRecall();
 *   const agent = new Agent({ name, tools: [...tools, ...ctxkitRecallTools(recall)] });
 *   await run(agent, input, { callModelInputFilter: ctxkitInputFilter({ contextWindow: 200_000, recall }) });
 */
import { type FunctionTool, tool } from '@openai/agents';
import { checkRecall, type Recall } from '../../core/index.ts';

export function ctxkitRecallTools(recall: Recall): FunctionTool[] {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
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
