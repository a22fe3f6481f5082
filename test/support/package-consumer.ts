/**
 * ctxkit as its users get it: `npm run tarball` (scripts/pack.mjs: the build packages alone, installed in
 * a temporary directory, the sources built and packed there, as from a clean clone) into a temporary
 * directory, then `npm install <tarball>` into a fresh project there. Shared by the consumer smoke
 * test (test/package) and `npm run bench:package` (scripts/package-figures.ts).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const REPO_MODULES = join(ROOT, 'node_modules');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a program; never throws for a non-zero exit (the caller checks `code`). */
export function exec(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<Exec> {
  const started = performance.now();
  return new Promise((done) => {
    execFile(
      file,
      [...args],
      {
        cwd: options.cwd ?? ROOT,
        env: { ...process.env, npm_config_update_notifier: 'false', ...options.env },
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

async function mustExec(file: string, args: readonly string[], options: Parameters<typeof exec>[2] = {}) {
  const r = await exec(file, args, options);
  if (r.code !== 0)
    throw new Error(`${file} ${args.join(' ')} failed (exit ${r.code}):\n${r.stderr || r.stdout}`);
  return r;
}

export interface Consumer {
  /** The temporary directory holding the tarball and the project. */
  dir: string;
  tarball: string;
  /** The fresh project (`"type": "module"`) with ctxkit installed from the tarball. */
  project: string;
  /** Milliseconds of `npm run tarball` (build packages, build and pack) and of `npm install <tarball>`. */
  packMs: number;
  installMs: number;
  cleanup(): Promise<void>;
}

/** Packs the repository as a clean clone would (`npm run tarball`) and installs the tarball into a fresh project. */
export async function packAndInstall(): Promise<Consumer> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxkit-pack-'));
  // As the README's install line runs it (through npm, so that a lifecycle script npm runs around
  // `tarball` would show), building in a temporary directory as from a clean clone (--stage).
  const pack = await mustExec(
    NPM,
    ['run', '--silent', 'tarball', '--', '--stage', '--pack-destination', dir],
    {
      cwd: ROOT,
    },
  );
  const tarball = pack.stdout.trim().split('\n').pop()!.trim();
  const project = join(dir, 'consumer');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'ctxkit-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  const install = await mustExec(NPM, ['install', tarball, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
  });
  return {
    dir,
    tarball,
    project,
    packMs: pack.ms,
    installMs: install.ms,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A second fresh project in the consumer's directory: `packages` installed first (e.g. `ai@6`, or
 * `@mastra/core ai` as the running Node resolves them), then the same packed tarball, the way a user adds
 * ctxkit to a project, both with npm's default peer checks (no `--legacy-peer-deps`, no flag). Throws
 * with npm's output when an install fails (an ERESOLVE peer conflict included).
 */
export async function installNextTo(
  c: Pick<Consumer, 'dir' | 'tarball'>,
  name: string,
  packages: readonly string[],
): Promise<{ project: string; ms: number }> {
  const project = join(c.dir, name);
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: `ctxkit-${name}`, private: true, type: 'module' }, null, 2)}\n`,
  );
  const flags = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  const first = await mustExec(NPM, ['install', ...packages, ...flags], { cwd: project });
  const then = await mustExec(NPM, ['install', c.tarball, ...flags], { cwd: project });
  return { project, ms: first.ms + then.ms };
}

/** The installed version of a package in a project. */
export async function installedVersion(project: string, name: string): Promise<string> {
  return JSON.parse(await readFile(join(project, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/**
 * An example of the repository (`examples/<name>.ts`) as a user's file in `project`: its imports of the
 * sources become the package's subpaths (`'../../src/frameworks/ai-sdk/index.ts'` → `'ctxkit/ai-sdk'`,
 * `'../../src/core/index.ts'` → `'ctxkit'`) and its types are stripped (esbuild), then it runs with
 * `node`. Resolves to the run.
 */
export async function runExample(project: string, name: string, args: readonly string[] = []): Promise<Exec> {
  const { transform } = await import('esbuild');
  const source = (await readFile(join(ROOT, 'examples', `${name}.ts`), 'utf8'))
    .replaceAll(/'(?:\.\.\/)+src\/frameworks\/([a-z-]+)\/index\.ts'/g, "'ctxkit/$1'")
    .replaceAll(/'(?:\.\.\/)+src\/core\/index\.ts'/g, "'ctxkit'");
  if (/'\.\.?\//.test(source))
    throw new Error(`examples/${name}.ts imports a relative path a user has not got`);
  const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20' });
  const file = join(project, `${name.replaceAll('/', '-')}.mjs`);
  await writeFile(file, code);
  return exec(process.execPath, [file, ...args], { cwd: project });
}

/** The files in the tarball (without the `package/` prefix). */
export async function tarballFiles(tarball: string): Promise<string[]> {
  const r = await mustExec('tar', ['-tzf', tarball]);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''))
    .sort();
}

export interface InstallFigures {
  /** Packages `npm ls --omit=dev --all` lists, ctxkit itself included. */
  packages: string[];
  bytes: number;
  /** Packages with a native build (`binding.gyp` or a compiled `.node` file). */
  native: string[];
}

async function walk(dir: string, visit: (path: string, size: number) => void): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) await walk(p, visit);
    else if (entry.isFile()) visit(p, (await stat(p)).size);
  }
}

/** What installing ctxkit put into the project: package list, bytes on disk, native builds. */
export async function installFigures(project: string): Promise<InstallFigures> {
  const ls = await exec(NPM, ['ls', '--omit=dev', '--all', '--parseable'], { cwd: project });
  const modules = join(project, 'node_modules');
  const packages = ls.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith(modules))
    .map((l) => l.slice(modules.length + 1));
  let bytes = 0;
  const native = new Set<string>();
  await walk(modules, (path, size) => {
    bytes += size;
    if (path.endsWith('.node') || path.endsWith('binding.gyp')) {
      const rel = path.slice(modules.length + 1).split('/');
      native.add(rel[0]!.startsWith('@') ? `${rel[0]}/${rel[1]}` : rel[0]!);
    }
  });
  return { packages: [...new Set(packages)].sort(), bytes, native: [...native].sort() };
}

/** Links the optional peers (and their types) from the repository's node_modules into the project. */
export async function linkOptionalPeers(project: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const target = join(project, 'node_modules', name);
    await mkdir(dirname(target), { recursive: true });
    await rm(target, { recursive: true, force: true });
    await symlink(join(REPO_MODULES, name), target, 'dir');
  }
}

/** The Deno binary of the `deno` npm package. */
export async function denoBinary(): Promise<string> {
  const { createRequire } = await import('node:module');
  const require = createRequire(join(ROOT, 'package.json'));
  const pkg = require.resolve('deno/package.json');
  const api = require(join(pkg, '..', 'install_api.cjs')) as { runInstall?: () => string };
  return typeof api.runInstall === 'function' ? api.runInstall() : join(pkg, '..', 'deno');
}

/** The pipeline figure's entry: `createPipeline` and every dialect's adapters (`SOURCE` = where from). */
export const PIPELINE_ADAPTERS_ENTRY =
  "export { createPipeline, fromOpenAI, toOpenAI, fromAnthropic, toAnthropic, fromResponses, toResponses, toResponsesRequest, fromGemini, toGemini } from 'SOURCE';";

/** How every size figure bundles: minified ESM for no platform in particular, in memory. */
export const BUNDLE_OPTIONS = {
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'neutral',
  write: false,
  logLevel: 'silent',
} as const;

/** Gzip -9 size of a minified esbuild bundle of `source`, resolved from `project` as a user's code. */
export async function bundleGzip(project: string, source: string): Promise<{ bytes: number; gzip: number }> {
  const { build } = await import('esbuild');
  const { gzipSync } = await import('node:zlib');
  const out = await build({
    stdin: { contents: source, resolveDir: project, loader: 'js' },
    ...BUNDLE_OPTIONS,
  });
  const code = out.outputFiles[0]!.contents;
  return { bytes: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

/** Median wall time of each `node` command line, the runs interleaved so that load hits all alike. */
export async function medianMs(
  commands: ReadonlyArray<readonly string[]>,
  runs: number,
  cwd: string,
): Promise<number[]> {
  const times: number[][] = commands.map(() => []);
  for (let i = 0; i < runs; i++)
    for (const [k, args] of commands.entries()) {
      const r = await exec(process.execPath, args, { cwd });
      if (r.code !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
      times[k]!.push(r.ms);
    }
  return times.map((t) => {
    t.sort((a, b) => a - b);
    return t[Math.floor(t.length / 2)]!;
  });
}
