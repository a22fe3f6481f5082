/**
 * The build's own check (`npm run test:slow`): `scripts/build.mjs --out` leaves an executable bin. In `npm test`
 * the package test covers it: `npm pack` builds through `prepack`, and the installed bin runs directly.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const out = mkdtempSync(join(tmpdir(), 'ctxkit-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run build (scripts/build.mjs)', () => {
  it('leaves an executable bin that prints its help when run directly', () => {
    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--out', out], {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(build.status, build.stderr).toBe(0);
    const bin = join(out, 'bin', 'ctxcheck.mjs');
    expect(statSync(bin).mode & 0o111).toBe(0o111);
    const help = spawnSync(bin, ['--help'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('replay');
  }, 240_000);
});
