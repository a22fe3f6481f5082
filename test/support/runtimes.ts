/**
 * Runs one entry module unchanged on Node, Deno and workerd. The entry's default export is
 * `async (input: unknown) => unknown` (JSON in, JSON out). For Deno and workerd the entry is bundled
 * with esbuild into a single ESM file; Deno comes from the `deno` npm package, workerd from Miniflare.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

export type Runtime = 'node' | 'deno' | 'workerd';
export const RUNTIMES: readonly Runtime[] = ['node', 'deno', 'workerd'];

const require = createRequire(import.meta.url);

/** Bundles `entry` into one ESM module exporting `run` (its default export). */
export async function bundle(
  entry: string,
  options: { alias?: Record<string, string> } = {},
): Promise<string> {
  const result = await build({
    alias: options.alias ?? {},
    entryPoints: [resolve(entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['worker', 'import', 'default'],
    target: 'es2022',
    // The repo's package.json says `sideEffects: false` (true of the published dist); the portability
    // entry imports test files for their side effects (registering cases), which must stay.
    ignoreAnnotations: true,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

function denoBinary(): string {
  // The `deno` npm package ships the binary and resolves it for this platform.
  const pkg = require.resolve('deno/package.json');
  const api = require(join(pkg, '..', 'install_api.cjs')) as { runInstall?: () => string };
  return typeof api.runInstall === 'function' ? api.runInstall() : join(pkg, '..', 'deno');
}

async function runDeno(code: string, input: unknown): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxkit-deno-'));
  try {
    await writeFile(join(dir, 'bundle.mjs'), code);
    await writeFile(join(dir, 'input.json'), JSON.stringify(input));
    await writeFile(
      join(dir, 'main.mjs'),
      `import run from './bundle.mjs';\nconst input = JSON.parse(await Deno.readTextFile(new URL('./input.json', import.meta.url)));\nconst out = await run(input);\nawait Deno.writeTextFile(new URL('./output.json', import.meta.url), JSON.stringify(out));\n`,
    );
    await new Promise<void>((ok, fail) => {
      execFile(
        denoBinary(),
        [
          'run',
          '--quiet',
          '--no-config',
          '--no-lock',
          `--allow-read=${dir}`,
          `--allow-write=${dir}`,
          join(dir, 'main.mjs'),
        ],
        { env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
        (err, _stdout, stderr) => (err ? fail(new Error(`deno failed: ${stderr || err.message}`)) : ok()),
      );
    });
    const { readFile } = await import('node:fs/promises');
    return JSON.parse(await readFile(join(dir, 'output.json'), 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runWorkerd(code: string, input: unknown): Promise<unknown> {
  const main = `import run from './bundle.mjs';
export default {
  async fetch(request) {
    const input = await request.json();
    try {
      return Response.json(await run(input));
    } catch (e) {
      return Response.json({ __error: String((e && e.stack) || e) }, { status: 500 });
    }
  },
};
`;
  const mf = new Miniflare({
    modules: [
      { type: 'ESModule', path: 'main.mjs', contents: main },
      { type: 'ESModule', path: 'bundle.mjs', contents: code },
    ],
    compatibilityDate: '2025-09-01',
  });
  try {
    const res = await mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify(input) });
    const body = (await res.json()) as { __error?: string };
    if (body && typeof body === 'object' && '__error' in body)
      throw new Error(`workerd failed: ${body.__error}`);
    return body;
  } finally {
    await mf.dispose();
  }
}

/** Runs the default export of `entry` with `input` on `runtime` and returns its JSON result. */
export async function runIn(
  runtime: Runtime,
  entry: string,
  input: unknown,
  options: { alias?: Record<string, string> } = {},
): Promise<unknown> {
  if (runtime === 'node') {
    const mod = (await import(pathToFileURL(resolve(entry)).href)) as {
      default: (i: unknown) => Promise<unknown>;
    };
    return JSON.parse(JSON.stringify(await mod.default(input)));
  }
  const code = await bundle(entry, options);
  return runtime === 'deno' ? runDeno(code, input) : runWorkerd(code, input);
}
