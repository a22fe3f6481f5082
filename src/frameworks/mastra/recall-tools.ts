/**
 * `ctxkitRecallTools(recall)`: the recall tools as Mastra tools, over the `createRecall()` given to the
 * processor's `recall` option:
 *
 *   const recall = createRecall();
 *   new Agent({ model, tools: { ...tools, ...(await ctxkitRecallTools(recall)) },
 *     inputProcessors: [ctxkitProcessor({ contextWindow: 200_000, recall })] });
 *
 * Async: the framework is imported when the tool set is made, so the entry loads without it.
 */
import type { Tool } from '@mastra/core/tools';
import { checkRecall, type Recall } from '../../core/index.ts';

export async function ctxkitRecallTools(recall: Recall): Promise<Record<string, Tool<never>>> {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  // Loaded when asked: the entry itself loads without the framework (it imports its types only).
  const { createTool } = await import('@mastra/core/tools');
  const set: Record<string, Tool<never>> = {};
  for (const d of tools.definitions)
    set[d.name] = createTool({
      id: d.name,
      description: d.description,
      inputSchema: d.parameters as never,
      execute: (input: unknown) => tools.call(d.name, input),
    });
  return set;
}
