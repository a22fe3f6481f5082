/** `ctxkit/invariants`: the conversation invariants (tool-call pairing, order) — check and repair. */
export type * from '../messages/types.ts';
export * from './check.ts';
export * from './pairing.ts';
export * from './repair.ts';
