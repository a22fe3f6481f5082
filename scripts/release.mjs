#!/usr/bin/env node
/**
 * `npm run release [-- --dry-run]`: publishes the package to the npm registry after the checks a
 * release needs, in order, stopping at the first that fails (exit 1, one line saying what to do):
 *
 * 1. the work tree is clean (what is published is what is committed);
 * 2. CHANGELOG.md has a `## [<version>]` section for package.json's version;
 * 3. `npm run check` (typecheck, lint + format, boundary test) passes;
 * 4. `npm publish` (which builds `dist/` through `prepack`), with `--dry-run` passed on: npm prints the
 *    file list and size and uploads nothing.
 *
 * The full suite (`npm test`, the package lane above all) is CI's job before a release; this script
 * does not run it again. Publishing needs `npm login` (or an automation token) with rights to `ctxkit`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const unknown = args.filter((a) => a !== '--dry-run');
if (unknown.length > 0) {
  console.error(`release: unknown argument ${unknown[0]} (known: --dry-run)`);
  process.exit(2);
}

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const status = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
if (status.status === 0 && status.stdout.trim() !== '' && !dryRun) {
  fail('the work tree has uncommitted changes; commit or stash them first (git status)');
}

const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
if (!new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm').test(changelog)) {
  fail(`CHANGELOG.md has no "## [${version}]" section; describe the release there first`);
}

for (const [label, command] of [
  ['npm run check', ['run', 'check']],
  [`npm publish${dryRun ? ' --dry-run' : ''}`, ['publish', ...(dryRun ? ['--dry-run'] : [])]],
]) {
  console.log(`release: ${label}`);
  const r = spawnSync(npm, command, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) fail(`${label} failed (exit ${r.status ?? 'signal'})`);
}
console.log(
  dryRun
    ? `release: ctxkit@${version} is ready (dry run, nothing uploaded)`
    : `release: ctxkit@${version} published`,
);
