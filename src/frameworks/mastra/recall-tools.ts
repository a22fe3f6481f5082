/**
 * `ctxkitRecallTools(recall)`: the recall tools as Mastra tools, over the `createRecall()` given to the
 * processor's `recall` option:
 *
 *   const recall = createRecall();
 *   new Agent({ model, tools: { ...tools, ...ctxkitRecallTools(recall) },
 *     inputProcessors: [ctxkitProcessor({ contextWindow: 200_000, recall })] });
 */
import { createTool } from '@mastra/core/tools';
import { checkRecall, type Recall } from '../../core/index.ts';

export function ctxkitRecallTools(recall: Recall): Record<string, ReturnType<typeof createTool>> {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  const set: Record<string, ReturnType<typeof createTool>> = {};
  for (const d of tools.definitions)
    set[d.name] = createTool({
      id: d.name,
      description: d.description,
      inputSchema: d.parameters as Parameters<typeof createTool>[0]['inputSchema'],
      execute: (input: unknown) => tools.call(d.name, input),
    });
  return set;
}
