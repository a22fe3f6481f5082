/**
 * The Worker as it was at a git commit, for a before/after comparison in one run
 * (`npm run bench:proxy -- --before <ref>`): `git archive <ref> src` into a temporary folder (with this
 * project's node_modules linked), bundled as the tests bundle the current tree.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleWorkerFrom } from '../../test/worker/support/bundle.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

export async function bundleWorkerAt(
  ref: string,
): Promise<{ scriptPath: string; commit: string; dispose(): void }> {
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', '--verify', `${ref}^{commit}`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    throw new Error(`--before: ${ref} is not a commit of this repository`);
  }
  const dir = mkdtempSync(join(tmpdir(), `ctxkit-worker-${commit}-`));
  execFileSync('sh', ['-c', `git archive ${commit} src | tar -x -C "${dir}"`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const scriptPath = join(dir, 'out', 'worker.mjs');
  await bundleWorkerFrom(dir, scriptPath);
  return { scriptPath, commit, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
