/**
 * Where the bytes of the issue #15 bundle (`createPipeline` + the four dialects' adapters, from `src/`,
 * esbuild minified, gzip -9, as `test/core/bundle-size.test.ts` builds it) are: each module's minified
 * bytes and its marginal gzip bytes — how much smaller the gzip gets with that module's code left out
 * of the same output — most first, then the same by folder.
 *
 *   npx tsx scripts/bundle-weights.ts [--top 40] [--entry "export { … } from 'SOURCE';"]
 *
 * The marginal figure is what a change can win: code that repeats other code costs little after gzip
 * (sharing it may even cost bytes), while data, word lists, prose and rules of their own cost most.
 * The sum of the marginals is near the total, not equal to it (gzip shares context between modules).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS, PIPELINE_ADAPTERS_ENTRY, ROOT } from '../test/support/package-consumer.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const top = Number(flag('--top') ?? 40);
const entry = (flag('--entry') ?? PIPELINE_ADAPTERS_ENTRY).replace('SOURCE', './src/core/index.ts');

/** `src/core/…` for ctxkit's files, `zod/v4/…` for a package's (node_modules may be a link elsewhere). */
const moduleName = (path: string) =>
  path.includes('/node_modules/')
    ? path.slice(path.lastIndexOf('/node_modules/') + 14)
    : relative(ROOT, path);

// Each module's code opens with a legal comment naming it, which esbuild keeps in place when minifying.
const out = await build({
  stdin: { contents: entry, resolveDir: ROOT, loader: 'js' },
  ...BUNDLE_OPTIONS,
  legalComments: 'inline',
  plugins: [
    {
      name: 'mark-modules',
      setup(b) {
        b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (a) => ({
          contents: `/*! MODULE:${moduleName(a.path)} */\n${readFileSync(a.path, 'utf8')}`,
          loader: /\.[cm]?ts$/.test(a.path) ? 'ts' : 'js',
        }));
      },
    },
  ],
});
// [code before the first module, name, code, name, code, …]
const pieces = out.outputFiles[0]!.text.split(/\/\*! MODULE:(\S+) \*\/\n?/);
const gzip = (code: string) => gzipSync(code, { level: 9 }).length;
const codeWithout = (skip?: string) =>
  pieces.filter((_, i) => i % 2 === 0 && (skip === undefined || i === 0 || pieces[i - 1] !== skip)).join('');
const full = codeWithout();
const total = gzip(full);

const rows = new Map<string, { bytes: number; marginal: number }>();
for (let i = 1; i < pieces.length; i += 2) {
  const name = pieces[i]!;
  const row = rows.get(name) ?? { bytes: 0, marginal: 0 };
  row.bytes += pieces[i + 1]!.length;
  rows.set(name, row);
}
for (const [name, row] of rows) row.marginal = total - gzip(codeWithout(name));

const sorted = [...rows].sort((a, b) => b[1].marginal - a[1].marginal);
console.log(`bundle: ${full.length} B minified, ${total} B gzip -9, ${rows.size} modules`);
console.log('\nmarginal gzip  minified  module');
for (const [name, r] of sorted.slice(0, top))
  console.log(`${String(r.marginal).padStart(13)}  ${String(r.bytes).padStart(8)}  ${name}`);

const folders = new Map<string, { bytes: number; marginal: number }>();
for (const [name, r] of rows) {
  const folder = name.split('/').slice(0, -1).join('/') || '.';
  const f = folders.get(folder) ?? { bytes: 0, marginal: 0 };
  f.bytes += r.bytes;
  f.marginal += r.marginal;
  folders.set(folder, f);
}
console.log('\nby folder (sum of marginals)');
for (const [name, f] of [...folders].sort((a, b) => b[1].marginal - a[1].marginal))
  console.log(`${String(f.marginal).padStart(13)}  ${String(f.bytes).padStart(8)}  ${name}`);
