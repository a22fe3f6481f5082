/**
 * The `recall` option as `createPipeline` checks it: a `Recall` from `createRecall` (recall/options.ts),
 * or absent. Kept apart from `createRecall`, so that a pipeline without recall carries none of it.
 */
import { CtxError } from '../errors.ts';
import type { Recall } from './options.ts';

/** The `recall` option checked: a `Recall` from `createRecall`, or absent. */
export function checkRecall(value: unknown, entry = 'recall'): Recall | undefined {
  if (value === undefined) return undefined;
  const r = value as Partial<Recall>;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof r.record !== 'function' ||
    !Array.isArray(r.definitions) ||
    typeof r.tools?.call !== 'function'
  )
    throw new CtxError(
      'invalid_config',
      'expected the result of createRecall(), e.g. recall: createRecall()',
      {
        path: entry,
      },
    );
  return value as Recall;
}
