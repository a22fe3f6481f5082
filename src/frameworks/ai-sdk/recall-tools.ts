/**
 * `ctxkitRecallTools({ archive })`: the recall tools as an AI SDK tool set, over the archive given to
 * the entry's `recall` option (`ctxkitPrepareStep({ contextWindow, recall: { archive } })`):
 *
 *   const archive = createMemoryRecallArchive();
 *   new ToolLoopAgent({ model, tools: { ...tools, ...ctxkitRecallTools({ archive }) },
 *     prepareStep: ctxkitPrepareStep({ contextWindow: 200_000, recall: { archive } }) });
 */
import { jsonSchema, type ToolSet, tool } from 'ai';
import { type RecallOptions, recallToolsFor, type TokenCounter } from '../../core/index.ts';

export function ctxkitRecallTools(options: RecallOptions & { counter?: TokenCounter }): ToolSet {
  const recall = recallToolsFor('ctxkitRecallTools', options);
  const set: ToolSet = {};
  for (const d of recall.definitions)
    set[d.name] = tool({
      description: d.description,
      inputSchema: jsonSchema<Record<string, unknown>>(d.parameters),
      execute: (input) => recall.call(d.name, input),
    });
  return set;
}
