/**
 * A Node module hook (`node --import <this file>`) under which a user's file that imports `ctxkit`,
 * `ctxkit/<subpath>` or `ctxkit/samples/<file>` runs against this repository's sources, without a
 * build: each subpath of package.json's `exports` map is read with `./dist/X.js` → `./src/X.ts`, and
 * tsx (registered here too) runs the TypeScript. The docs test (test/cli/docs-runnable.test.ts) runs
 * the README's user-project blocks so; the package test runs the same blocks against the tarball.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

if (process.env.CTXKIT_FROM_SOURCES_HOOK !== 'loaded') {
  process.env.CTXKIT_FROM_SOURCES_HOOK = 'loaded';
  await import(pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href);
  register(import.meta.url, { data: { root } });
}

/** `ctxkit/<subpath>` → the source file its export stands for (or the shipped file itself). */
function sourceOf(specifier, repo) {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const sub = specifier === 'ctxkit' ? '.' : `./${specifier.slice('ctxkit/'.length)}`;
  const target = pkg.exports[sub];
  if (target === undefined) {
    // A pattern export (`./samples/*`).
    for (const [key, value] of Object.entries(pkg.exports))
      if (key.endsWith('/*') && sub.startsWith(key.slice(0, -1)))
        return join(repo, value.replace('*', sub.slice(key.length - 1)));
    return undefined;
  }
  const file = typeof target === 'string' ? target : target.default;
  return join(repo, file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
}

let repoRoot;
export function initialize(data) {
  repoRoot = data?.root;
}

export async function resolve(specifier, context, next) {
  if (repoRoot && (specifier === 'ctxkit' || specifier.startsWith('ctxkit/'))) {
    const file = sourceOf(specifier, repoRoot);
    // Handed on, so that tsx (registered before) resolves the TypeScript file as it does its own.
    if (file) return next(pathToFileURL(file).href, context);
  }
  return next(specifier, context);
}
