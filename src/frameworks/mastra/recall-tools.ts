/**
 * `ctxkitRecallTools({ archive })`: the recall tools as Mastra tools, over the archive given to the
 * processor's `recall` option (`ctxkitProcessor({ contextWindow, recall: { archive } })`):
 *
 *   const archive = createMemoryRecallArchive();
 *   new Agent({ model, tools: { ...tools, ...ctxkitRecallTools({ archive }) },
 *     inputProcessors: [ctxkitProcessor({ contextWindow: 200_000, recall: { archive } })] });
 */
import { createTool } from '@mastra/core/tools';
import { type RecallOptions, recallToolsFor, type TokenCounter } from '../../core/index.ts';

export function ctxkitRecallTools(
  options: RecallOptions & { counter?: TokenCounter },
): Record<string, ReturnType<typeof createTool>> {
  const recall = recallToolsFor('ctxkitRecallTools', options);
  const set: Record<string, ReturnType<typeof createTool>> = {};
  for (const d of recall.definitions)
    set[d.name] = createTool({
      id: d.name,
      description: d.description,
      inputSchema: d.parameters as Parameters<typeof createTool>[0]['inputSchema'],
      execute: (input: unknown) => recall.call(d.name, input),
    });
  return set;
}
