/**
 * `ctxkitRecallTools(recall)`: the recall tools as an AI SDK tool set, over the `createRecall()` given
 * to the entry's `recall` option:
 *
 *   const recall = createRecall();
 *   new ToolLoopAgent({ model, tools: { ...tools, ...ctxkitRecallTools(recall) },
 *     prepareStep: ctxkitPrepareStep({ contextWindow: 200_000, recall }) });
 */
import { jsonSchema, type ToolSet, tool } from 'ai';
import { checkRecall, type Recall } from '../../core/index.ts';

export function ctxkitRecallTools(recall: Recall): ToolSet {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  const set: ToolSet = {};
  for (const d of tools.definitions)
    set[d.name] = tool({
      description: d.description,
      inputSchema: jsonSchema<Record<string, unknown>>(d.parameters),
      execute: (input) => tools.call(d.name, input),
    });
  return set;
}
