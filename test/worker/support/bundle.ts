/**
 * Bundles the Worker with esbuild (as wrangler does) into one ES module for Miniflare. Built once
 * per test process.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

export const ROOT = resolve(import.meta.dirname, '../../..');
let pending: Promise<string> | undefined;

export function bundleWorker(): Promise<string> {
  pending ??= (async () => {
    const dir = join(tmpdir(), `ctxkit-worker-bundle-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, 'worker.mjs');
    await bundleWorkerFrom(ROOT, outfile);
    return outfile;
  })();
  return pending;
}

/** The Worker of the source tree under `root` (`src/worker/index.ts`) bundled into `outfile`, as wrangler does. */
export async function bundleWorkerFrom(root: string, outfile: string): Promise<void> {
  await build({
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
