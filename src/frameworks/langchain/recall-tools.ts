/**
 * `ctxkitRecallTools({ archive })`: the recall tools as LangChain tools, over the archive given to the
 * middleware's `recall` option (`ctxkitMiddleware({ contextWindow, recall: { archive } })`):
 *
 *   const archive = createMemoryRecallArchive();
 *   createAgent({ model, tools: [...tools, ...ctxkitRecallTools({ archive })],
 *     middleware: [ctxkitMiddleware({ contextWindow: 200_000, recall: { archive } })] });
 */
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { type RecallOptions, recallToolsFor, type TokenCounter } from '../../core/index.ts';

export function ctxkitRecallTools(
  options: RecallOptions & { counter?: TokenCounter },
): StructuredToolInterface[] {
  const recall = recallToolsFor('ctxkitRecallTools', options);
  return recall.definitions.map((d) =>
    tool((input: unknown) => recall.call(d.name, input), {
      name: d.name,
      description: d.description,
      schema: d.parameters,
    }),
  );
}
