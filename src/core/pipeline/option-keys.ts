/**
 * The keys `createPipeline`, `createContext` and `prepare` take, checked on every call from plain
 * JavaScript too: a misspelt or misplaced option (`{ contextWindow }` outside `budget`, `sytem`) is
 * an error naming it, never silently dropped, and a dialect is one ctxkit knows.
 */
import { CtxError } from '../errors.ts';
import { DIALECTS } from '../messages/schema.ts';

type Code = 'invalid_input' | 'invalid_config';

export const PIPELINE_KEYS = [
  'preset',
  'config',
  'budget',
  'counter',
  'summarizer',
  'blobs',
  'clock',
  'ids',
  'excludeTools',
  'conservative',
  'observe',
  'ahead',
  'aheadLimit',
  'recall',
  'cache',
] as const;

/** The keys `createContext` takes: the pipeline's and its own (public: wrappers check against it). */
export const CONTEXT_KEYS = [...PIPELINE_KEYS, 'dialect', 'model', 'state', 'checkpoints'] as const;
// test/core/pipeline/option-keys.test.ts checks these lists against the option types (tsc).

/** What one call may say about itself (`ContextCall`), and `PrepareInput` beside its history. */
export const CALL_KEYS = ['system', 'tools', 'dialect', 'model', 'signal'] as const;

/** Throws `code` naming the first key of `value` that is not `known`, or when `value` is no object. */
export function checkKeys(value: unknown, known: readonly string[], code: Code): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CtxError(code, 'expected an options object');
  for (const k of Object.keys(value))
    if (!known.includes(k))
      throw new CtxError(code, `unknown option (known: ${known.join(', ')})`, { path: k });
}

/** Throws `code` naming `dialect` unless it is absent or a dialect ctxkit speaks. */
export function checkDialect(dialect: unknown, code: Code): void {
  if (dialect !== undefined && !(DIALECTS as readonly unknown[]).includes(dialect))
    throw new CtxError(code, `expected one of ${DIALECTS.join(', ')}`, { path: 'dialect' });
}
