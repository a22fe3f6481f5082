/**
 * `ctxkit/tokens`: token counting on its own — the calibrated estimator, the preset estimators, the
 * conservative wrapper, the context estimate, and exact counts through the optional `gpt-tokenizer`.
 */
export type { TokenCounter } from '../ports.ts';
export * from './calibrated/index.ts';
export * from './conservative.ts';
export * from './context.ts';
export * from './estimators.ts';
export * from './exact.ts';
export * from './text-stats.ts';
