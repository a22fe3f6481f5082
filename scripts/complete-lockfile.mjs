#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages (biome, deno, rollup…
// binaries for other operating systems) that this project's npm registry mirror does not serve.
// Without their entries, `npm ci` refuses the lock file as "out of sync". Each added entry carries
// the os/cpu/libc its name encodes, so npm skips it on every other platform and fetches it (by
// name and version) only where it applies. Run after `npm install` changes dependencies.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);

function platformOf(name) {
  const base = name.split('/').pop();
  const os = [
    'android',
    'darwin',
    'freebsd',
    'openbsd',
    'netbsd',
    'sunos',
    'aix',
    'win32',
    'linux',
    'openharmony',
  ].find((o) => base.includes(o));
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'].find((c) =>
    new RegExp(`(^|-)${c}(-|$)`).test(base),
  );
  const entry = {};
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu];
  if (/musl/.test(base)) entry.libc = ['musl'];
  else if (/gnu|glibc/.test(base)) entry.libc = ['glibc'];
  return entry;
}

function missing() {
  try {
    execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts'], {
      stdio: 'pipe',
      cwd: new URL('..', import.meta.url),
    });
    return [];
  } catch (e) {
    const text = `${e.stdout}${e.stderr}`;
    return [...text.matchAll(/Missing: (.+?)@(\S*) from lock file/g)].map((m) => m[1]);
  }
}

const names = missing();
if (names.length === 0) {
  console.log('package-lock.json is complete');
  process.exit(0);
}
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
let added = 0;
for (const name of names) {
  const parent = Object.entries(lock.packages).find(([, p]) => p.optionalDependencies?.[name]);
  if (!parent) {
    console.error(`cannot complete ${name}: no package declares it as an optional dependency`);
    process.exitCode = 1;
    continue;
  }
  const [parentPath, p] = parent;
  const at =
    parentPath.includes('node_modules/') && lock.packages[`node_modules/${name}`]
      ? `${parentPath}/node_modules/${name}`
      : `node_modules/${name}`;
  lock.packages[at] = {
    version: p.optionalDependencies[name].replace(/^[\^~=]/, ''),
    optional: true,
    ...platformOf(name),
  };
  added++;
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform-specific optional package entries`);
const left = missing();
if (left.length > 0) {
  console.error(`still missing: ${left.join(', ')}`);
  process.exitCode = 1;
}
