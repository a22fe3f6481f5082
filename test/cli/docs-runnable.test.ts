import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { freePort } from '../support/free-port.ts';
import { printedExports, type RunnableBlock, runnableBlocks } from '../support/runnable-blocks.ts';

const root = join(import.meta.dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const blocksByPage = new Map(
  pages.map((page) => [page, runnableBlocks(page, readFileSync(join(root, page), 'utf8'))] as const),
);

describe('runnableBlocks', () => {
  it('returns each marked shell block with its mode and line when the marker sits above the fence', () => {
    const md = [
      '# t',
      '<!-- runnable -->',
      '```sh',
      'echo hi',
      '```',
      '',
      '```sh',
      'not marked',
      '```',
      '<!-- runnable: background -->',
      '```sh',
      'npm start',
      '```',
    ].join('\n');
    expect(runnableBlocks('t.md', md)).toEqual([
      { file: 't.md', line: 3, mode: 'run', script: 'echo hi' },
      { file: 't.md', line: 11, mode: 'background', script: 'npm start' },
    ]);
  });

  it('returns a file block of any language with its name, and a project block, when so marked', () => {
    const md = ['<!-- runnable: file example.mjs -->', '```js', 'console.log(1)', '```'];
    md.push('<!-- runnable: project -->', '```sh', 'node example.mjs', '```');
    expect(runnableBlocks('t.md', md.join('\n'))).toEqual([
      { file: 't.md', line: 2, mode: 'file', name: 'example.mjs', script: 'console.log(1)' },
      { file: 't.md', line: 6, mode: 'project', script: 'node example.mjs' },
    ]);
    expect(() => runnableBlocks('t.md', '<!-- runnable: file -->\n```js\nx\n```')).toThrow('needs a name');
    expect(() => runnableBlocks('t.md', '<!-- runnable: file ../x.mjs -->\n```js\nx\n```')).toThrow(
      'needs a name',
    );
  });

  it('throws naming the page and line when a marker is not above a shell block', () => {
    expect(() => runnableBlocks('t.md', 'a\n<!-- runnable -->\ntext')).toThrow('t.md:2');
    expect(() => runnableBlocks('t.md', '<!-- runnable -->\n```ts\nx\n```')).toThrow('shell block');
    expect(() => runnableBlocks('t.md', '<!-- runnable: later -->\n```sh\nx\n```')).toThrow(
      'unknown runnable mode',
    );
  });
});

describe('printedExports', () => {
  it('reads the export lines a service printed when they stand alone', () => {
    expect(printedExports('ctxkit: key\n\n  export CTXKIT_KEY=ctx_ab_cd\n  curl x\n')).toEqual({
      CTXKIT_KEY: 'ctx_ab_cd',
    });
  });
});

interface PageRun {
  servicePort: number;
  persistTo: string;
  fake: FakeProvider;
  /** The user's project of the page's project and file blocks, made on first use. */
  project?: string;
}

const HOOK = join(root, 'test', 'support', 'ctxkit-from-sources.mjs');

/**
 * A user's project with ctxkit installed, as far as the README's project blocks can tell: `import
 * 'ctxkit'` and `ctxkit/samples/…` resolve to this repository's sources (test/support/ctxkit-from-sources.mjs,
 * loaded through NODE_OPTIONS), node_modules/ctxkit/ is the repository, and `npx ctxcheck` is
 * bin/ctxcheck.mjs. The package test runs the same blocks with the packed tarball installed.
 */
function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-docs-project-'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "docs-project", "private": true, "type": "module" }\n');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules', 'ctxkit'), 'dir');
  const shim = join(dir, 'node_modules', '.bin', 'ctxcheck');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin', 'ctxcheck.mjs')}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

function projectEnv(project: string): Record<string, string> {
  return {
    NODE_OPTIONS: `--import ${pathToFileURL(HOOK).href}`,
    PATH: `${join(project, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
  };
}

/**
 * The block as the test runs it: the documented ports become free ones (8787 the service, 11434 the
 * local OpenAI-compatible server, played by the fake provider) and `npm start` gets a fresh state
 * folder, so that a service already running on the machine neither collides nor is touched.
 */
function localize(script: string, run: PageRun): string {
  const fakeHost = new URL(run.fake.openaiBase).host;
  return script
    .replace(
      /\bnpm start(?: --)?(?=\s|$)/g,
      `npm start -- --port ${run.servicePort} --persist-to ${run.persistTo}`,
    )
    .replaceAll('127.0.0.1:11434', fakeHost)
    .replaceAll('localhost:11434', fakeHost)
    .replace(/\b(localhost|127\.0\.0\.1):8787\b/g, `127.0.0.1:${run.servicePort}`);
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  // What the page must set itself is not inherited from the machine running the test.
  for (const name of ['CTXKIT_KEY', 'CTXKIT_URL', 'CTXKIT_SESSION']) if (!(name in extra)) delete env[name];
  return env;
}

function runBlock(block: RunnableBlock, script: string, vars: Record<string, string>, cwd = root) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env: cleanEnv(vars) });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: `${block.file}:${block.line}\n$ ${script}\n${output}` });
    });
  });
}

/** Starts a background block (its own process group) and waits until it says it is ready. */
function startBlock(block: RunnableBlock, script: string, vars: Record<string, string>) {
  const child = spawn('bash', ['-e', '-c', script], { cwd: root, env: cleanEnv(vars), detached: true });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 120 s:\n${output}`)), 120_000);
    const seen = (d: Buffer) => {
      output += d;
      if (/ready on /.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${block.file}:${block.line}: exited ${code} before ready:\n${output}`));
    });
  });
  return { child, ready };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
      resolve();
    }, 8000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      resolve();
    }
  });
}

describe('runnable command blocks of README.md and docs/*.md', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider({ port: 0 });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('marks the README quick start, library example, CLI block and the proxy set-up runnable when the pages are read', () => {
    const readme = blocksByPage.get('README.md') ?? [];
    expect(readme.some((b) => b.mode === 'background' && /^npm start\b/m.test(b.script))).toBe(true);
    expect(readme.some((b) => b.mode === 'run' && b.script.includes('/v1/sessions'))).toBe(true);
    // The library example is a file of the user's project, run there, and so is the CLI block.
    expect(
      readme.some((b) => b.mode === 'file' && b.name === 'example.mjs' && b.script.includes("from 'ctxkit'")),
    ).toBe(true);
    expect(readme.some((b) => b.mode === 'project' && /^node example\.mjs\b/m.test(b.script))).toBe(true);
    expect(readme.some((b) => b.mode === 'project' && /^npx ctxcheck inspect /m.test(b.script))).toBe(true);
    const proxy = blocksByPage.get('docs/proxy.md') ?? [];
    expect(
      proxy.some((b) => b.mode === 'background' && b.script.includes('--var UPSTREAM_OPENAI_BASE_URL')),
    ).toBe(true);
    expect(proxy.some((b) => b.mode === 'run' && b.script.includes('examples/proxy-openai.ts'))).toBe(true);
  });

  for (const [page, blocks] of blocksByPage) {
    if (blocks.length === 0) continue;
    it(`runs every runnable block of ${page} in order and each exits 0`, { timeout: 300_000 }, async () => {
      // The free port can be taken by another test's server while the service starts (its migrations
      // take seconds): the service then says so and exits, and the page runs again on another port.
      for (let attempt = 1; ; attempt++) {
        try {
          return await runPage(blocks);
        } catch (error) {
          if (attempt === 3 || !/port \d+ on 127\.0\.0\.1 is in use/.test(String(error))) throw error;
        }
      }
    });
  }

  async function runPage(blocks: readonly RunnableBlock[]): Promise<void> {
    const run: PageRun = {
      servicePort: await freePort(),
      persistTo: mkdtempSync(join(tmpdir(), 'ctxkit-docs-')),
      fake,
    };
    const services: ChildProcess[] = [];
    const vars: Record<string, string> = {};
    try {
      for (const block of blocks) {
        if (block.mode === 'file' || block.mode === 'project') {
          run.project ??= userProject();
          if (block.mode === 'file') writeFileSync(join(run.project, block.name!), `${block.script}\n`);
          else {
            const result = await runBlock(
              block,
              block.script,
              { ...vars, ...projectEnv(run.project) },
              run.project,
            );
            expect(result.code, result.output).toBe(0);
          }
          continue;
        }
        const script = localize(block.script, run);
        if (block.mode === 'background') {
          const { child, ready } = startBlock(block, script, vars);
          services.push(child);
          Object.assign(vars, printedExports(await ready));
          continue;
        }
        const result = await runBlock(block, script, vars);
        expect(result.code, result.output).toBe(0);
      }
    } finally {
      await Promise.all(services.map(stop));
      rmSync(run.persistTo, { recursive: true, force: true });
      if (run.project) rmSync(run.project, { recursive: true, force: true });
    }
  }
});
