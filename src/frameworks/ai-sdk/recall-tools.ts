/**
 * `ctxkitRecallTools(recall)`: the recall tools as an AI SDK tool set, over the `createRecall()` given
 * to the entry's `recall` option:
 *
 *   const recall = createRecall();
 *   new ToolLoopAgent({ model, tools: { ...tools, ...(await ctxkitRecallTools(recall)) },
 *     prepareStep: ctxkitPrepareStep({ contextWindow: 200_000, recall }) });
 *
 * Async: the framework is imported when the tool set is made, so the entry loads without it.
 */
import type { ToolSet } from 'ai';
import { checkRecall, type Recall } from '../../core/index.ts';

export async function ctxkitRecallTools(recall: Recall): Promise<ToolSet> {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  // Loaded when asked: the entry itself loads without the framework (it imports its types only).
  const { jsonSchema, tool } = await import('ai');
  const set: ToolSet = {};
  for (const d of tools.definitions)
    set[d.name] = tool({
      description: d.description,
      inputSchema: jsonSchema<Record<string, unknown>>(d.parameters),
      execute: (input) => tools.call(d.name, input),
    });
  return set;
}
