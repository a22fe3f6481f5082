/**
 * `ctxkitRecallTools(recall)`: the recall tools as LangChain tools, over the `createRecall()` given to
 * the middleware's `recall` option:
 *
 *   const recall = createRecall();
 *   createAgent({ model, tools: [...tools, ...ctxkitRecallTools(recall)],
 *     middleware: [ctxkitMiddleware({ contextWindow: 200_000, recall })] });
 */
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { checkRecall, type Recall } from '../../core/index.ts';

export function ctxkitRecallTools(recall: Recall): StructuredToolInterface[] {
  const { tools } = checkRecall(recall ?? null, 'ctxkitRecallTools')!;
  return tools.definitions.map((d) =>
    tool((input: unknown) => tools.call(d.name, input), {
      name: d.name,
      description: d.description,
      schema: d.parameters,
    }),
  );
}
