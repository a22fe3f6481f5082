#!/usr/bin/env node
/**
 * `npm run tarball` — the package tarball from a clone, fast and without a compiler: no `npm ci` of the
 * whole repository (wrangler, workerd, Deno, the agent frameworks, better-sqlite3's native build), only
 * what the build needs, at the versions package-lock.json pins:
 *
 *   typescript, esbuild, yargs, zod, @types/node, drizzle-orm
 *
 * (the declarations of `ctxkit/node` name drizzle-orm's table types; the frameworks' own types are not
 * needed: every export that names them is annotated, so `tsc --noCheck` writes the same declarations
 * without them — the package test compares this tarball's files with a build that has every dev
 * dependency). They are installed with `--ignore-scripts` into a temporary directory next to a copy of
 * the sources, built there (`scripts/build.mjs`), packed with `npm pack`, and the temporary directory is
 * removed. The clone is left as it was.
 *
 * In a clone whose node_modules already holds those packages (after `npm ci`), it builds in place.
 *
 *   npm run --silent tarball -- [--pack-destination DIR] [--stage]
 *
 * Prints the tarball's absolute path as its only line on stdout (progress on stderr). `--stage` builds
 * in a temporary directory even when node_modules is there (the package test uses it).
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** What the build needs, and nothing else (scripts/build.mjs; its header says why each). */
export const BUILD_PACKAGES = ['typescript', 'esbuild', 'yargs', 'zod', '@types/node', 'drizzle-orm'];

/** What the build reads. */
const SOURCES = ['src', 'migrations', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json'];

/** What the tarball holds besides what the build writes: package.json's `files`, and what npm always packs. */
function packed() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return ['package.json', 'README.md', 'LICENSE', ...manifest.files.filter((f) => f !== 'dist')];
}

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const log = (line) => process.stderr.write(`pack: ${line}\n`);

function run(file, args, cwd) {
  const r = spawnSync(file, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stdout ?? '');
    log(`${file} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
  return r.stdout;
}

/** The version package-lock.json pins for each build package. */
function pinnedVersions() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  return Object.fromEntries(
    BUILD_PACKAGES.map((name) => {
      const version = lock.packages?.[`node_modules/${name}`]?.version;
      if (!version) {
        log(`package-lock.json pins no version of ${name}`);
        process.exit(1);
      }
      return [name, version];
    }),
  );
}

/** node_modules of the clone holds every build package at its pinned version. */
function installedInPlace(versions) {
  return Object.entries(versions).every(([name, version]) => {
    const manifest = join(root, 'node_modules', name, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version;
  });
}

function pack(dir, destination) {
  const out = run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], dir);
  const [{ filename }] = JSON.parse(out);
  return join(destination, filename);
}

const started = Date.now();
const destination = resolve(argValue('--pack-destination') ?? root);
mkdirSync(destination, { recursive: true });
const versions = pinnedVersions();
let tarball;
if (!process.argv.includes('--stage') && installedInPlace(versions)) {
  log('building in place (node_modules holds the build packages)');
  run(process.execPath, [join(root, 'scripts', 'build.mjs')], root);
  tarball = pack(root, destination);
} else {
  const stage = mkdtempSync(join(tmpdir(), 'ctxkit-pack-'));
  try {
    const tools = join(stage, 'tools');
    const pkg = join(stage, 'package');
    mkdirSync(tools);
    writeFileSync(
      join(tools, 'package.json'),
      `${JSON.stringify({ name: 'ctxkit-build-tools', private: true, dependencies: versions }, null, 2)}\n`,
    );
    log(`installing ${BUILD_PACKAGES.map((n) => `${n}@${versions[n]}`).join(' ')} (--ignore-scripts)`);
    run(
      NPM,
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'],
      tools,
    );
    for (const path of [...SOURCES, ...packed()])
      cpSync(join(root, path), join(pkg, path), { recursive: true });
    symlinkSync(join(tools, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    log('building');
    run(process.execPath, [join(pkg, 'scripts', 'build.mjs')], pkg);
    tarball = pack(pkg, destination);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
log(`${tarball} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.stdout.write(`${tarball}\n`);
