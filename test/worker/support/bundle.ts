/**
 * Bundles the Worker with esbuild (as wrangler does) into one ES module for Miniflare. Built once
 * per test process.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs script of the repository, without declarations
import { testFaultsPlugin } from '../../../scripts/test-faults-plugin.mjs';

export const ROOT = resolve(import.meta.dirname, '../../..');
const pending = new Map<string, Promise<string>>();

/** The Worker bundled once per test process; `testFaults`: the test build, its fault points armed by header. */
export function bundleWorker(options: { testFaults?: boolean } = {}): Promise<string> {
  const name = options.testFaults ? 'worker-faults.mjs' : 'worker.mjs';
  let made = pending.get(name);
  if (!made) {
    made = (async () => {
      const dir = join(tmpdir(), `ctxkit-worker-bundle-${process.pid}`);
      mkdirSync(dir, { recursive: true });
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      const outfile = join(dir, name);
      await bundleWorkerFrom(ROOT, outfile, options);
      return outfile;
    })();
    pending.set(name, made);
  }
  return made;
}

/** The Worker of the source tree under `root` (`src/worker/index.ts`) bundled into `outfile`, as wrangler does. */
export async function bundleWorkerFrom(
  root: string,
  outfile: string,
  options: { testFaults?: boolean } = {},
): Promise<void> {
  await build({
    plugins: options.testFaults ? [testFaultsPlugin(root)] : [],
    entryPoints: [join(root, 'src/worker/index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*', 'node:*'],
    logLevel: 'error',
  });
}
