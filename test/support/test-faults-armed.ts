/**
 * The test build of src/worker/test-faults.ts (`npm start -- --test-faults` bundles this file in its
 * place): a request arms a fault point with `x-ctxkit-test-fault: <point>`, and the service holds for
 * ever when it reaches it, after printing `ctxkit test fault: holding at <point>` — the moment a test
 * kills it (bench/attack/integrity-storage.ts). Never part of src/, so never in a deployed bundle.
 */
import type { FaultPoint } from '../../src/worker/test-faults.ts';

const POINTS: readonly FaultPoint[] = ['append:after-d1-write', 'append:before-d1-write'];

export type { FaultPoint };

export function armedFault(headers: Headers): FaultPoint | undefined {
  const raw = headers.get('x-ctxkit-test-fault');
  return POINTS.find((p) => p === raw);
}

export async function faultPoint(armed: FaultPoint | undefined, point: FaultPoint): Promise<void> {
  if (armed !== point) return;
  console.log(`ctxkit test fault: holding at ${point}`);
  // A pending timer keeps the runtime from dropping the held work; it never resolves.
  await new Promise<never>(() => setInterval(() => undefined, 1000));
}
