/**
 * The portability lane's entry: core test files, unchanged, registered against the mini-vitest shim
 * (the bundler aliases `vitest` to it) and run in whatever runtime loads this bundle.
 */
import '../core/adapters.test.ts';
import '../core/budget.test.ts';
import '../core/invariants.test.ts';
import '../core/messages.test.ts';
import '../core/tokens.test.ts';
import '../core/tokens-calibrated.test.ts';
import { runRegistered } from '../support/mini-vitest.ts';

export default async function run(): Promise<unknown> {
  return runRegistered();
}
