/**
 * Fault points: places where a test may hold the service still (and kill -9 it there) to prove that
 * what a crash at that instant leaves is recovered. In this module every point is a no-op and no
 * request can arm one: only the test build replaces it (`npm start -- --test-faults` bundles
 * test/support/test-faults-armed.ts in its place, an esbuild plugin in scripts/start.mjs). A deployed
 * Worker is bundled from src/ alone, so no configuration — no variable, no header — can turn a point
 * on in production: the code that would hold is not in its bundle.
 */

/** After an append's rows are in D1, before anything else of the request (its idempotency record). */
export type FaultPoint = 'append:after-d1-write' | 'append:before-d1-write';

/** The fault point a request arms; never one outside the test build. */
export function armedFault(_headers: Headers): FaultPoint | undefined {
  return undefined;
}

/** Holds for ever at `point` when `armed` names it (test build only); here it returns at once. */
export async function faultPoint(_armed: FaultPoint | undefined, _point: FaultPoint): Promise<void> {}
