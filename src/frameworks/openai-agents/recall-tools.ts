/**
 * `ctxkitRecallTools({ archive })`: the recall tools as Agents SDK function tools, over the archive
 * given to the entry's `recall` option (`ctxkitInputFilter({ contextWindow, recall: { archive } })` or
 * `ctxkitSession`):
 *
 *   const archive = createMemoryRecallArchive();
 *   const agent = new Agent({ name, tools: [...tools, ...ctxkitRecallTools({ archive })] });
 *   await run(agent, input, { callModelInputFilter: ctxkitInputFilter({ contextWindow: 200_000, recall: { archive } }) });
 */
import { type FunctionTool, tool } from '@openai/agents';
import { type RecallOptions, recallToolsFor, type TokenCounter } from '../../core/index.ts';

export function ctxkitRecallTools(options: RecallOptions & { counter?: TokenCounter }): FunctionTool[] {
  const recall = recallToolsFor('ctxkitRecallTools', options);
  return recall.definitions.map((d) =>
    tool({
      name: d.name,
      description: d.description,
      // Optional arguments (limit, offset): the schema is not a strict one.
      parameters: d.parameters as never,
      strict: false,
      execute: (input: unknown) => recall.call(d.name, input),
    }),
  ) as FunctionTool[];
}
