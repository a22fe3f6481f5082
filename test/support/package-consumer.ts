/**
 * ctxkit as its users get it: `npm pack` (which builds `dist/` through `prepack`) into a temporary
 * directory, then `npm install <tarball>` into a fresh project there. Shared by the consumer smoke
 * test (test/package) and `npm run bench:package` (scripts/package-figures.ts).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
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
  /** Milliseconds of `npm pack` (build included) and of `npm install <tarball>`. */
  packMs: number;
  installMs: number;
  cleanup(): Promise<void>;
}

/** Packs the repository and installs the tarball into a fresh project. */
export async function packAndInstall(): Promise<Consumer> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxkit-pack-'));
  const pack = await mustExec(NPM, ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT });
  const name = pack.stdout.trim().split('\n').pop()!.trim();
  const tarball = join(dir, name);
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
 * A second fresh project in the consumer's directory with the same packed tarball installed next to
 * `packages` (e.g. `openai@7`), with npm's default peer checks (no `--legacy-peer-deps`). Throws
 * with npm's output when the install fails (an ERESOLVE peer conflict included).
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
  const install = await mustExec(
    NPM,
    ['install', c.tarball, ...packages, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    { cwd: project },
  );
  return { project, ms: install.ms };
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

/** Gzip -9 size of a minified esbuild bundle of `source`, resolved from `project` as a user's code. */
export async function bundleGzip(project: string, source: string): Promise<{ bytes: number; gzip: number }> {
  const { build } = await import('esbuild');
  const { gzipSync } = await import('node:zlib');
  const out = await build({
    stdin: { contents: source, resolveDir: project, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
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
