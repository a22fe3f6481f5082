/**
 * `npm run bench:package`: the package figures, measured from the installed tarball the way a user
 * gets ctxkit (`npm run tarball` built as from a clean clone, then `npm install <tarball>` into a fresh
 * project):
 *
 * - how long those two took (the build packages come from npm's cache once it holds them);
 * - the packages a core-only user installs (`npm ls --omit=dev --all`), their size on disk and any
 *   native build;
 * - `createCalibratedCounter` from `ctxkit/tokens` and `createPipeline` + the adapters from `ctxkit`,
 *   each bundled minified by esbuild from the installed package, gzip -9;
 * - `ctxcheck --help` start-up against a bare `node -e 0` in the same run (interleaved medians);
 * - what the tarball holds.
 *
 * Options: `--runs N` start-up runs (default 21), `--json` for the figures as JSON.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  bundleGzip,
  installFigures,
  medianMs,
  PIPELINE_ADAPTERS_ENTRY,
  packAndInstall,
  tarballFiles,
} from '../test/support/package-consumer.ts';

const args = process.argv.slice(2);
const runsArg = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 21;
if (!Number.isInteger(runsArg) || runsArg < 3 || runsArg > 500) {
  console.error('package-figures: --runs must be a whole number from 3 to 500');
  process.exit(2);
}
const unknown = args.filter((a, i) => !['--runs', '--json'].includes(a) && args[i - 1] !== '--runs');
if (unknown.length > 0) {
  console.error(`package-figures: unknown argument ${unknown[0]} (options: --runs N, --json)`);
  process.exit(2);
}

const consumer = await packAndInstall();
try {
  const install = await installFigures(consumer.project);
  const tokens = await bundleGzip(
    consumer.project,
    "export { createCalibratedCounter } from 'ctxkit/tokens';",
  );
  const pipeline = await bundleGzip(consumer.project, PIPELINE_ADAPTERS_ENTRY.replace('SOURCE', 'ctxkit'));
  const cli = join(consumer.project, 'node_modules', 'ctxkit', 'dist', 'bin', 'ctxcheck.mjs');
  const [bare, help] = await medianMs(
    [
      ['-e', '0'],
      [cli, '--help'],
    ],
    runsArg,
    consumer.project,
  );
  const files = await tarballFiles(consumer.tarball);
  const tarballBytes = (await stat(consumer.tarball)).size;
  const topLevel = [...new Set(files.map((f) => f.split('/')[0]!))].sort();

  const figures = {
    node: process.version,
    coreInstall: {
      packages: install.packages,
      count: install.packages.length,
      megabytes: Number((install.bytes / 1024 / 1024).toFixed(2)),
      native: install.native,
    },
    tokensGzipBytes: tokens.gzip,
    pipelineAdaptersGzipBytes: pipeline.gzip,
    startup: {
      runs: runsArg,
      bareNodeMs: Math.round(bare!),
      ctxcheckHelpMs: Math.round(help!),
      ratio: Number((help! / bare!).toFixed(2)),
    },
    tarball: { files: files.length, bytes: tarballBytes, topLevel },
    seconds: {
      tarball: Number((consumer.packMs / 1000).toFixed(1)),
      install: Number((consumer.installMs / 1000).toFixed(1)),
    },
  };
  if (args.includes('--json')) console.log(JSON.stringify(figures, null, 2));
  else {
    const ok = (pass: boolean) => (pass ? 'yes' : 'NO');
    const rows: Array<[string, string, string, boolean]> = [
      [
        '`npm run tarball` (staged, as from a clean clone) + `npm install <tarball>`',
        `${figures.seconds.tarball} s + ${figures.seconds.install} s`,
        '≤ 2 min, no compiler',
        figures.seconds.tarball + figures.seconds.install <= 120,
      ],
      [
        'packages a core-only user installs',
        `${figures.coreInstall.count} (${install.packages.join(', ')}), ${figures.coreInstall.megabytes} MB, native builds: ${install.native.length === 0 ? 'none' : install.native.join(', ')}`,
        '≤ 5, no native build, ≤ 12 MB',
        figures.coreInstall.count <= 5 && install.native.length === 0 && figures.coreInstall.megabytes <= 12,
      ],
      [
        '`ctxkit/tokens` createCalibratedCounter, esbuild minified, gzip -9',
        `${tokens.gzip} B (${tokens.bytes} B minified)`,
        '≤ 3.5 KB',
        tokens.gzip <= 3.5 * 1024,
      ],
      [
        '`createPipeline` + the OpenAI, Anthropic, Responses and Gemini adapters from `ctxkit`, gzip -9',
        `${pipeline.gzip} B = ${(pipeline.gzip / 1024).toFixed(1)} KiB (${pipeline.bytes} B minified)`,
        '≤ 75 KB',
        pipeline.gzip <= 75 * 1024,
      ],
      [
        '`ctxcheck --help` start-up',
        `${figures.startup.ctxcheckHelpMs} ms vs ${figures.startup.bareNodeMs} ms for \`node -e 0\` = ${figures.startup.ratio}× (medians of ${runsArg}, interleaved)`,
        '≤ 4×',
        figures.startup.ratio <= 4,
      ],
      [
        'tarball',
        `${files.length} files, ${(tarballBytes / 1024).toFixed(0)} KiB: ${topLevel.join(', ')}`,
        'dist, samples, docs, CHANGELOG, README, LICENSE only',
        topLevel.every((t) =>
          ['dist', 'samples', 'docs', 'CHANGELOG.md', 'README.md', 'LICENSE', 'package.json'].includes(t),
        ),
      ],
    ];
    console.log(`ctxkit package figures (${process.version}, from the installed tarball)\n`);
    console.log('| measure | measured | goal | met |\n|---|---|---|---|');
    for (const [what, measured, goal, pass] of rows)
      console.log(`| ${what} | ${measured} | ${goal} | ${ok(pass)} |`);
  }
} finally {
  await consumer.cleanup();
}
