/**
 * The esbuild plugin of the test build (`npm start -- --test-faults`, and the worker tests that kill
 * the runtime at a fault point): src/worker/test-faults.ts, whose points are no-ops, is replaced by
 * test/support/test-faults-armed.ts, whose points a request arms. A Worker bundled without this
 * plugin — every deployed one — has no armed point in it.
 */
import { join } from 'node:path';

/** @param {string} root the repository root */
export function testFaultsPlugin(root) {
  return {
    name: 'ctxkit-test-faults',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      build.onResolve({ filter: /\/test-faults\.ts$/ }, (args) =>
        args.importer.includes(join('src', 'worker'))
          ? { path: join(root, 'test', 'support', 'test-faults-armed.ts') }
          : undefined,
      );
    },
  };
}
