/**
 * `ctxkitRecallTools(recall)`: the recall tools as LangChain tools, over the `createRecall()` given to
 * the middleware's `recall` option:
 *
 *   const recall = createRecall();
 *   createAgent({ model, tools: [...tools, ...(await ctxkitRecallTools(recall))],
 *     middleware: [ctxkitMiddleware({ contextWindow: 200_000, recall })] });
 *
 * Async: the framework is imported when the tool set is made, so the entry loads without it.
 */
import type { StructuredToolInterface } from '@langchain/core/tools';
import { checkRecall, type Recall } from '../../core/index.ts';

export async function ctxkitRecallTools(recall: Recall): Promise<StructuredToolInterface[]> {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  // Loaded when asked: the entry itself loads without the framework (it imports its types only).
  const { tool } = await import('@langchain/core/tools');
  return tools.definitions.map((d) =>
    tool((input: unknown) => tools.call(d.name, input), {
      name: d.name,
      description: d.description,
      schema: d.parameters,
    }),
  );
}
