/**
 * ctxkit core: pure, runtime-agnostic. Runs unchanged on Node, Deno and Cloudflare Workers.
 */
export * from './errors.ts';
export * from './ports.ts';
export type * from './messages/types.ts';
export * from './messages/schema.ts';
export * from './messages/text.ts';
export * from './messages/builders.ts';
export * from './messages/turns.ts';
export * from './messages/visibility.ts';
export * from './invariants/pairing.ts';
export * from './invariants/check.ts';
export * from './invariants/repair.ts';
export * from './adapters/openai.ts';
export * from './adapters/anthropic.ts';
export * from './tokens/text-stats.ts';
export * from './tokens/py-json.ts';
export * from './tokens/estimators.ts';
export * from './tokens/exact.ts';
export * from './tokens/context.ts';
export * from './budget/budget.ts';
export * from './tokens/calibrated/index.ts';
export * from './store/index.ts';
export * from './fixtures/index.ts';
export * from './text/trim.ts';
export * from './text/line-truncate.ts';
export * from './blobs/sha256.ts';
export * from './blobs/memory-blob-store.ts';
export * from './pipeline/stages/output-truncation.ts';
export * from './pipeline/stages/output-truncation-modes.ts';
export * from './pipeline/stages/historical-truncation.ts';
export * from './pipeline/stages/dedup.ts';
export * from './pipeline/stages/pruning.ts';
export * from './pipeline/stages/archiving.ts';
export * from './pipeline/stages/emergency-trim.ts';
