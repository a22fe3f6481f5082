/**
 * The consumer smoke test: ctxkit packed (`npm pack`, which builds `dist/`), installed from the
 * tarball into a fresh project, and used the ways its users use it — plain Node ESM and require(),
 * TypeScript under `node16` and `bundler` with `strict`, Deno, a user's own Worker built by
 * `wrangler deploy --dry-run` and answering in Miniflare, and the `ctxcheck` CLI. First with
 * nothing but what `npm install ctxkit` brings (zod), then with the optional peers linked in.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declarationImports } from '../support/declaration-imports.ts';
import { brokenLinks } from '../support/markdown-links.ts';
import {
  type Consumer,
  denoBinary,
  type Exec,
  exec,
  installedVersion,
  installFigures,
  installNextTo,
  linkOptionalPeers,
  packAndInstall,
  REPO_MODULES,
  ROOT,
  runExample,
  tarballFiles,
} from '../support/package-consumer.ts';
import { runnableBlocks } from '../support/runnable-blocks.ts';

let c: Consumer;
const TSC = join(REPO_MODULES, 'typescript', 'bin', 'tsc');
const FIXTURE = join(ROOT, 'fixtures/default/default-current-request-survives-compaction.json');
const node = (args: string[]) => exec(process.execPath, args, { cwd: c.project });
const write = (name: string, text: string) => writeFile(join(c.project, name), text);

beforeAll(async () => {
  c = await packAndInstall();
}, 600_000);

afterAll(async () => {
  await c?.cleanup();
});

async function tsc(
  name: string,
  resolution: 'node16' | 'nodenext' | 'bundler',
  files: string[],
  types: string[],
  skipLibCheck = false,
) {
  const config = {
    compilerOptions: {
      strict: true,
      module: resolution === 'bundler' ? 'esnext' : resolution,
      moduleResolution: resolution,
      target: 'ES2022',
      noEmit: true,
      // false: the consumer checks ctxkit's declaration files too.
      skipLibCheck,
      types,
    },
    files,
  };
  await write(`tsconfig.${name}.json`, JSON.stringify(config, null, 2));
  return exec(process.execPath, [TSC, '-p', `tsconfig.${name}.json`], { cwd: c.project });
}

describe('the tarball', () => {
  it('holds dist, the sample, the docs, CHANGELOG, README, LICENSE and package.json only', async () => {
    const files = await tarballFiles(c.tarball);
    const outside = files.filter((f) => !f.startsWith('dist/') && !f.startsWith('docs/'));
    expect(outside).toEqual([
      'CHANGELOG.md',
      'LICENSE',
      'README.md',
      'package.json',
      'samples/coding-session.json',
    ]);
    // docs/ whole: the README and `ctxcheck --help` link to its pages, and they to each other.
    const docs = (await readdir(join(ROOT, 'docs'), { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => relative(ROOT, join(e.parentPath, e.name)))
      .sort();
    expect(files.filter((f) => f.startsWith('docs/'))).toEqual(docs);
    expect(files).toContain('dist/core/index.js');
    expect(files).toContain('dist/core/index.d.ts');
    expect(files).toContain('dist/bin/ctxcheck.mjs');
    expect(files).toContain('dist/migrations/meta/_journal.json');
    expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
  });

  it('holds what a build with every dev dependency writes: npm run tarball needs no framework installed', async () => {
    // The tarball was built from a copy of the sources with the build packages alone (scripts/pack.mjs
    // --stage); the same build here, with node_modules holding every framework, writes the same bytes.
    const full = join(c.dir, 'full-build');
    const built = await exec(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--out', full]);
    expect(built.code, built.stderr).toBe(0);
    const unpacked = join(c.dir, 'unpacked');
    await mkdir(unpacked);
    const tar = await exec('tar', ['-xzf', c.tarball, '-C', unpacked]);
    expect(tar.code, tar.stderr).toBe(0);
    const packed = join(unpacked, 'package', 'dist');
    const files = (await tarballFiles(c.tarball)).filter((f) => f.startsWith('dist/')).map((f) => f.slice(5));
    expect(files.length).toBeGreaterThan(300);
    const differ: string[] = [];
    for (const f of files) {
      const [a, b] = await Promise.all([
        readFile(join(packed, f)),
        readFile(join(full, f)).catch(() => null),
      ]);
      if (b === null || !a.equals(b)) differ.push(f);
    }
    expect(differ).toEqual([]);
    const written = (await readdir(full, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => relative(full, join(e.parentPath, e.name)))
      .sort();
    expect(written).toEqual([...files].sort());
  }, 300_000);

  it('publishes cleanly in a dry run: public, no package.json corrections, a changelog section for its version', async () => {
    const publish = await exec(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['publish', c.tarball, '--dry-run', '--json'],
      { cwd: c.dir },
    );
    expect(publish.code, publish.stderr).toBe(0);
    // The only warning left is the one every dry run without `npm login` prints.
    const warnings = publish.stderr
      .split('\n')
      .filter((l) => /npm warn/i.test(l) && !/nodedir|requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.publishConfig).toEqual({ access: 'public' });
    expect(manifest.scripts.release).toBe('node scripts/release.mjs');
    const changelog = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toContain(`## [${manifest.version}]`);
  });

  it('resolves every relative link of its Markdown files (README, CHANGELOG, docs) inside the tarball', async () => {
    // Before, the README's 25 links to docs/ and docs/cli.md's 8 named pages the tarball did not hold.
    const files = await tarballFiles(c.tarball);
    expect(files.filter((f) => f.endsWith('.md')).length).toBeGreaterThan(20);
    expect(brokenLinks(join(c.project, 'node_modules', 'ctxkit'), files)).toEqual([]);
  });

  it.each(
    Object.entries({
      '.': ['zod'],
      './tokens': [],
      './invariants': [],
      './adapters': ['zod'],
      './node': ['better-sqlite3', 'drizzle-orm', 'zod'],
      './providers': ['zod'],
      './ai-sdk': ['ai', 'zod'],
      './mastra': ['@mastra/core', 'zod'],
      './langchain': ['@langchain/core', 'langchain', 'zod'],
      './openai-agents': ['@openai/agents', 'zod'],
    }),
  )('declares %s with the types of no package but the ones it needs', async (entry, expected) => {
    // What TypeScript loads for a consumer importing the entry: an optional peer's types here fail a
    // skipLibCheck: false build without it (ctxkit/providers named openai's, ctxkit/mastra the `ai`
    // package's, before). better-sqlite3's types are @types/better-sqlite3 (docs/packaging.md).
    const pkg = join(c.project, 'node_modules', 'ctxkit');
    const manifest = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8'));
    const types: string = manifest.exports[entry].types;
    expect([...declarationImports(join(pkg, types)).keys()]).toEqual(expected);
  });

  it('passes publint and arethetypeswrong (ESM-only profile)', async () => {
    const publint = await exec(process.execPath, [
      join(REPO_MODULES, 'publint', 'src', 'cli.js'),
      'run',
      c.tarball,
      '--strict',
    ]);
    expect(publint.stdout + publint.stderr).toContain('All good');
    const attw = await exec(process.execPath, [
      join(REPO_MODULES, '@arethetypeswrong', 'cli', 'dist', 'index.js'),
      c.tarball,
      '--profile',
      'esm-only',
      '--format',
      'ascii',
    ]);
    expect(attw.code, attw.stdout + attw.stderr).toBe(0);
  });
});

describe('a core-only install (npm install ctxkit, nothing else)', () => {
  it('brings zod and nothing native', async () => {
    const figures = await installFigures(c.project);
    expect(figures.packages).toEqual(['ctxkit', 'zod']);
    expect(figures.native).toEqual([]);
    expect(figures.bytes).toBeLessThanOrEqual(12 * 1024 * 1024);
  });

  it('imports every subpath from plain Node ESM and runs a pipeline', async () => {
    await write(
      'esm.mjs',
      `import { createPipeline, createCalibratedCounter as fromRoot } from 'ctxkit';
import { createCalibratedCounter } from 'ctxkit/tokens';
import { checkInvariants } from 'ctxkit/invariants';
import { fromOpenAI, toOpenAI } from 'ctxkit/adapters';
import { createTiktokenCounter } from 'ctxkit/tokens';
import pkg from 'ctxkit/package.json' with { type: 'json' };
import { fromModelMessages, ctxkitPrepareStep } from 'ctxkit/ai-sdk';
import { ctxkitProcessor } from 'ctxkit/mastra';
const frameworks = [fromModelMessages([{ role: 'user', content: 'hi' }])[0].parts[0].text, typeof ctxkitPrepareStep({ contextWindow: 8000 }), ctxkitProcessor({ contextWindow: 8000 }).id];
const messages = fromOpenAI([{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }]);
const run = await createPipeline({ preset: 'default', budget: { contextWindow: 1000 } }).prepare({ messages });
let node;
try { await import('ctxkit/node'); } catch (e) { node = e.message; }
let tiktoken;
try { await createTiktokenCounter('o200k_base'); } catch (e) { tiktoken = e.message; }
console.log(JSON.stringify({
  same: fromRoot === createCalibratedCounter,
  tokens: createCalibratedCounter().countText('hello world'),
  violations: checkInvariants(messages).length,
  out: toOpenAI(run.messages),
  version: pkg.version,
  node,
  tiktoken,
  frameworks,
}));
`,
    );
    const r = await node(['esm.mjs']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      same: true,
      violations: 0,
      out: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ],
    });
    expect(out.tokens).toBeGreaterThan(0);
    // ctxkit/ai-sdk and ctxkit/mastra load without their framework installed (they import its types only).
    expect(out.frameworks).toEqual(['hi', 'function', 'ctxkit']);
    // The optional peers are named when a feature needs them.
    expect(out.node).toContain("Cannot find package 'drizzle-orm'");
    expect(out.tiktoken).toContain('npm install gpt-tokenizer');
  });

  it('imports ctxkit/providers without openai: prompts, parsers and summarizerFrom work, the SDK pieces name openai', async () => {
    await write(
      'providers.mjs',
      `import { fromOpenAI, summarizerFrom } from 'ctxkit';
import * as providers from 'ctxkit/providers';
const messages = fromOpenAI([{ role: 'user', content: 'we chose Postgres' }, { role: 'assistant', content: 'noted' }]);
const request = { purpose: 'compaction', preset: 'default', messages };
const plan = providers.buildPrompt(request);
const parsed = providers.parseKosmokratorAnswer('{"summary": "s", "memories": []}');
const seen = [];
const custom = await summarizerFrom(async (call) => {
  seen.push([call.system === providers.KOSMOKRATOR_SYSTEM_PROMPT, call.prompt.includes('we chose Postgres'), call.maxOutputTokens]);
  return '{"summary": "## Goal\\\\nPostgres", "memories": []}';
}).summarize(request);
const summarizer = providers.createOpenAISummarizer({ model: 'm' });
let sdk;
try { await summarizer.summarize(request); } catch (e) { sdk = { code: e.code, message: e.message }; }
let embedder;
try { await providers.openAIEmbedder({ apiKey: 'k' }).embed(['x']); } catch (e) { embedder = e.message; }
console.log(JSON.stringify({ family: plan.family, parsed, custom: custom.summary, seen, name: summarizer.name, sdk, embedder }));
`,
    );
    const r = await node(['providers.mjs']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      family: 'kosmokrator',
      parsed: { summary: 's', memories: [] },
      custom: '## Goal\nPostgres',
      seen: [[true, true, 4096]],
      name: 'openai',
      sdk: { code: 'unsupported' },
    });
    expect(out.sdk.message).toMatch(
      /^createOpenAISummarizer needs the optional package openai \(npm install openai\): Cannot find package 'openai'/,
    );
    expect(out.embedder).toContain('openAIEmbedder needs the optional package openai (npm install openai)');
  });

  it('loads with require() (Node ≥ 20.19 require(esm))', async () => {
    await write(
      'cjs.cjs',
      `const core = require('ctxkit');
const tokens = require('ctxkit/tokens');
const invariants = require('ctxkit/invariants');
const adapters = require('ctxkit/adapters');
console.log(JSON.stringify([typeof core.createPipeline, typeof tokens.createCalibratedCounter,
  typeof invariants.repairMessages, typeof adapters.fromAnthropic, typeof adapters.fromResponses, typeof adapters.fromGemini, require('ctxkit/package.json').name]));
`,
    );
    const r = await node(['cjs.cjs']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(''); // no ExperimentalWarning for require(esm) from node_modules
    expect(JSON.parse(r.stdout)).toEqual([
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'ctxkit',
    ]);
  });

  it.each(['node16', 'bundler'] as const)(
    'type-checks a strict TypeScript consumer under %s',
    async (resolution) => {
      await write(
        'core.ts',
        `import { createPipeline, type Message, type PipelineRun, type Summarizer, type SummarizerCall, summarizerFrom } from 'ctxkit';
import { createCalibratedCounter, type TokenCounter } from 'ctxkit/tokens';
import { checkInvariants, type Violation } from 'ctxkit/invariants';
import { fromOpenAI, toAnthropic } from 'ctxkit/adapters';
import {
  createOpenAISummarizer,
  loadOpenAI,
  type OpenAIChatClient,
  type OpenAIClientOptions,
  type OpenAIModule,
  openAIEmbedder,
} from 'ctxkit/providers';

const counter: TokenCounter = createCalibratedCounter({ preset: 'o200k' });
const messages: Message[] = fromOpenAI([{ role: 'user', content: 'hi' }]);
const violations: Violation[] = checkInvariants(messages);
const pipeline = createPipeline({ preset: 'default', budget: { contextWindow: 8000 }, counter });
export const run: Promise<PipelineRun> = pipeline.prepare({ messages });
export const out = toAnthropic(messages);
export const n: number = violations.length + counter.countText('hello');
// A summarizer over any client: the call is plain data, the answer a string or { text, usage }.
export const custom: Summarizer = summarizerFrom(
  async ({ system, prompt, maxOutputTokens, signal }: SummarizerCall) =>
    signal?.aborted ? { text: system + prompt, usage: { inputTokens: maxOutputTokens, outputTokens: undefined } } : 'summary',
  { name: 'mine', maxOutputTokens: 2048 },
);
// ctxkit/providers without openai installed: its declarations name no type of the SDK.
export const llm = createOpenAISummarizer({
  model: 'm',
  clientFactory: (o: OpenAIClientOptions): OpenAIChatClient => ({
    chat: { completions: { create: async (body) => ({ model: body.model, timeout: o.timeout }) } },
  }),
});
export const embedder = openAIEmbedder({ client: { embeddings: { create: async () => ({ data: [] }) } } });
export const sdk: Promise<OpenAIModule> = loadOpenAI();
// @ts-expect-error the function must answer a string or { text }
summarizerFrom(async () => 42);
// @ts-expect-error a preset name is checked
createPipeline({ preset: 1, budget: { contextWindow: 8000 } });
`,
      );
      const r = await tsc(`core-${resolution}`, resolution, ['core.ts'], []);
      expect(r.stdout + r.stderr).toBe('');
      expect(r.code).toBe(0);
    },
  );

  it('type-checks a CommonJS TypeScript consumer (require of the ESM package) under nodenext', async () => {
    // TypeScript ≥ 5.8 models Node's require(esm) under `module: nodenext`; `node16` has no CJS path to
    // an ESM-only package (docs/packaging.md).
    await write(
      'cjs.cts',
      `import ctxkit = require('ctxkit');
import tokens = require('ctxkit/tokens');
export const pipeline = ctxkit.createPipeline({ preset: 'default', budget: { contextWindow: 8000 } });
export const n: number = tokens.createCalibratedCounter().countText('hello');
`,
    );
    const r = await tsc('cjs-nodenext', 'nodenext', ['cjs.cts'], []);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('imports each entry without its optional packages, or fails naming the package it needs', async () => {
    await write(
      'entries.mjs',
      `const out = {};
for (const entry of ['ctxkit', 'ctxkit/tokens', 'ctxkit/invariants', 'ctxkit/adapters', 'ctxkit/node', 'ctxkit/providers',
  'ctxkit/ai-sdk', 'ctxkit/mastra', 'ctxkit/langchain', 'ctxkit/openai-agents']) {
  try { await import(entry); out[entry] = 'ok'; } catch (e) { out[entry] = e.code + ': ' + e.message.split('\\n')[0]; }
}
console.log(JSON.stringify(out));
`,
    );
    const r = await node(['entries.mjs']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    // One line naming the package; which of ctxkit's files imports it first changes with the build.
    const missing = (pkg: string) =>
      expect.stringMatching(
        new RegExp(
          `^ERR_MODULE_NOT_FOUND: Cannot find package '${pkg}' imported from ${c.project}/node_modules/ctxkit/dist/\\S+\\.js$`,
        ),
      );
    expect(out).toEqual({
      ctxkit: 'ok',
      'ctxkit/tokens': 'ok',
      'ctxkit/invariants': 'ok',
      'ctxkit/adapters': 'ok',
      'ctxkit/node': missing('drizzle-orm'),
      'ctxkit/providers': 'ok',
      'ctxkit/ai-sdk': 'ok',
      'ctxkit/mastra': 'ok',
      'ctxkit/langchain': missing('(@langchain/core|langchain)'),
      'ctxkit/openai-agents': 'ok',
    });
  });

  it('runs in Deno', async () => {
    await write(
      'deno.mjs',
      `import { createPipeline } from 'ctxkit';
import { createCalibratedCounter } from 'ctxkit/tokens';
import { fromOpenAI } from 'ctxkit/adapters';
import { checkInvariants } from 'ctxkit/invariants';
import { createOpenAISummarizer } from 'ctxkit/providers';
import { ctxkitPrepareStep } from 'ctxkit/ai-sdk';
import { ctxkitProcessor } from 'ctxkit/mastra';
import { ctxkitInputFilter } from 'ctxkit/openai-agents';
const run = await createPipeline({ preset: 'default', budget: { contextWindow: 1000 } })
  .prepare({ messages: fromOpenAI([{ role: 'user', content: 'hello deno' }]) });
console.log(JSON.stringify({ deno: typeof Deno.version.deno, messages: run.messages.length,
  tokens: createCalibratedCounter().countText('hello deno'),
  entries: [checkInvariants, createOpenAISummarizer, ctxkitPrepareStep, ctxkitProcessor, ctxkitInputFilter].map((f) => typeof f) }));
`,
    );
    const r = await exec(
      await denoBinary(),
      ['run', '--quiet', '--no-lock', '--allow-read', '--allow-env', 'deno.mjs'],
      {
        cwd: c.project,
        env: { DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      deno: 'string',
      messages: 1,
      entries: Array(5).fill('function'),
    });
  });

  it("builds a user's Worker with wrangler and answers a request in Miniflare", async () => {
    await write(
      'worker.mjs',
      `import { createPipeline, fromOpenAI, toOpenAI } from 'ctxkit';
export default {
  async fetch(request) {
    const body = await request.json();
    const pipeline = createPipeline({ preset: 'default', budget: { contextWindow: body.window } });
    const run = await pipeline.prepare({ messages: fromOpenAI(body.messages) });
    return Response.json({ messages: toOpenAI(run.messages), level: run.estimate.level });
  },
};
`,
    );
    await write(
      'wrangler.toml',
      'name = "ctxkit-consumer"\nmain = "worker.mjs"\ncompatibility_date = "2025-09-01"\n',
    );
    const built = await exec(
      process.execPath,
      [join(REPO_MODULES, 'wrangler', 'bin', 'wrangler.js'), 'deploy', '--dry-run', '--outdir', 'out'],
      { cwd: c.project, env: { WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' } },
    );
    expect(built.code, built.stderr).toBe(0);
    const mf = new Miniflare({
      modules: true,
      modulesRoot: join(c.project, 'out'),
      scriptPath: join(c.project, 'out', 'worker.js'),
      compatibilityDate: '2025-09-01',
    });
    try {
      const res = await mf.dispatchFetch('http://localhost/', {
        method: 'POST',
        body: JSON.stringify({ window: 1000, messages: [{ role: 'user', content: 'hello worker' }] }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        messages: [{ role: 'user', content: 'hello worker' }],
        level: 'ok',
      });
    } finally {
      await mf.dispose();
    }
  });

  it("runs the README's library example and CLI block as written, in the user's project", async () => {
    const blocks = runnableBlocks('README.md', await readFile(join(ROOT, 'README.md'), 'utf8')).filter(
      (b) => b.mode === 'file' || b.mode === 'project',
    );
    expect(blocks.map((b) => b.mode)).toEqual(['file', 'project', 'project']);
    let output = '';
    for (const block of blocks) {
      if (block.mode === 'file') {
        await write(block.name!, `${block.script}\n`);
        continue;
      }
      const r = await exec('bash', ['-e', '-o', 'pipefail', '-c', block.script], { cwd: c.project });
      expect(r.code, `README.md:${block.line}\n${r.stdout}${r.stderr}`).toBe(0);
      output += r.stdout;
    }
    // The example: one line a model call, every send within the window's rules, one compaction.
    const calls = output.split('\n').filter((l) => / messages sent, /.test(l));
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.every((l) => l.includes(' 0 rule violations'))).toBe(true);
    expect(calls.some((l) => /compaction/.test(l))).toBe(true);
    // The CLI block wrote the compacted session, its journal and the page.
    for (const f of ['compacted.json', 'compacted.json.journal.json', 'view.html'])
      expect((await readFile(join(c.project, f))).length).toBeGreaterThan(100);
  });

  it("type-checks the README's library example under strict TypeScript with the two types the README names", async () => {
    const file = runnableBlocks('README.md', await readFile(join(ROOT, 'README.md'), 'utf8')).find(
      (b) => b.mode === 'file',
    )!;
    const ts = file.script
      .replace("import { checkInvariants, createPipeline, fromOpenAI, toOpenAI } from 'ctxkit';", (line) =>
        line.replace('toOpenAI }', 'toOpenAI, type Message, type PipelineState }'),
      )
      .replace('let messages = [];', 'let messages: Message[] = [];')
      .replace('let state;', 'let state: PipelineState | undefined;');
    expect(ts).toContain('let messages: Message[] = [];');
    expect(ts).toContain('type PipelineState }');
    await write('example.ts', ts);
    await linkOptionalPeers(c.project, ['@types/node']);
    const r = await tsc('example', 'node16', ['example.ts'], ['node'], true);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('runs the ctxcheck CLI from the tarball without tsx', async () => {
    const bin = join(c.project, 'node_modules', '.bin', 'ctxcheck');
    const help = await exec(bin, ['--help'], { cwd: c.project });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ctxcheck replay <globs..>');
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain(`Docs: ${join(c.project, 'node_modules', 'ctxkit', 'docs', 'cli.md')}`);
    const version = await exec(bin, ['--version'], { cwd: c.project });
    expect(version.stdout.trim()).toBe(
      JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version,
    );
    const replay = await exec(bin, ['replay', FIXTURE], { cwd: c.project });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('1 passed, 0 failed');
    const bad = await exec(bin, ['replay', FIXTURE, '--preset', 'turbo'], { cwd: c.project });
    expect([bad.code, bad.stdout, bad.stderr.trim().split('\n').length]).toEqual([2, '', 1]);
    await write('chat.json', JSON.stringify([{ role: 'user', content: 'hello' }]));
    const noEnv = {
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      CTXKIT_LLM_BASE_URL: '',
      CTXKIT_LLM_API_KEY: '',
    };
    // No provider configured: --llm falls back to the offline summarizer, openai or not.
    const offline = await exec(bin, ['compact', 'chat.json', '--window', '1000', '--llm'], {
      cwd: c.project,
      env: noEnv,
    });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toContain('no API key configured');
    // A provider configured without the SDK installed: exit 2, the package named.
    const llm = await exec(bin, ['compact', 'chat.json', '--window', '1000', '--llm'], {
      cwd: c.project,
      env: { ...noEnv, CTXKIT_LLM_API_KEY: 'k' },
    });
    expect(llm.code).toBe(2);
    expect(llm.stderr).toContain('--llm: the optional package openai is not installed (npm install openai)');
    expect(help.stderr + replay.stderr).not.toMatch(/tsx/);
    // Each package a benchmark needs is named at once (it named drizzle-orm alone before).
    const memory = await exec(bin, ['bench', 'memory', '--locomo', 'none.json'], { cwd: c.project });
    expect(memory.code).toBe(2);
    expect(memory.stderr.trim()).toBe(
      'ctxcheck: bench memory unavailable: the optional packages better-sqlite3 and drizzle-orm are not installed (npm install better-sqlite3 drizzle-orm)',
    );
    // bench compaction named gpt-tokenizer with the library's advice for bundlers and a chunk's path.
    await mkdir(join(c.project, 'no-sessions'), { recursive: true });
    const compaction = await exec(bin, ['bench', 'compaction', '--data', 'no-sessions'], { cwd: c.project });
    expect([compaction.code, compaction.stderr.trim()]).toEqual([
      2,
      'ctxcheck: the optional package gpt-tokenizer is not installed (npm install gpt-tokenizer)',
    ]);
  });
});

/**
 * The SDK's client and module fit ctxkit/providers' own structural types (OpenAIClientOptions,
 * OpenAIChatClient, OpenAIEmbeddingsClient, OpenAIModule), without a cast. Needs `import OpenAI from 'openai'`.
 */
const sdkFitsScript = `import type { OpenAIModule } from 'ctxkit/providers';
export const viaFactory = createOpenAISummarizer({ model: 'm', clientFactory: (o) => new OpenAI(o) });
export const ownClient = openAIEmbedder({ client: new OpenAI({ apiKey: 'k' }) });
export const sdkModule = async (): Promise<OpenAIModule> => import('openai');
`;

// ctxkit/providers through the installed openai SDK: a fake Chat Completions endpoint through the SDK's
// own `fetch` option (the real SDK, no network).
const summarizeScript = `import { createOpenAISummarizer, isRetryable, loadOpenAI } from 'ctxkit/providers';
import { fromOpenAI } from 'ctxkit';
import { readFileSync } from 'node:fs';
const fetch = async (url, init) => {
  const body = JSON.parse(String(init.body));
  return new Response(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: body.model,
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"summary": "via the sdk", "memories": []}' } }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }), { status: 200, headers: { 'content-type': 'application/json' } });
};
const s = createOpenAISummarizer({ model: 'm', apiKey: 'k', fetch, maxRetries: 0 });
const r = await s.summarize({ purpose: 'compaction', preset: 'default', messages: fromOpenAI([{ role: 'user', content: 'hi' }]) });
const sdk = await loadOpenAI();
const version = JSON.parse(readFileSync('node_modules/openai/package.json', 'utf8')).version;
console.log(JSON.stringify({ summary: r.summary, usage: r.usage, retry503: isRetryable(sdk.APIError.generate(503, {}, 'busy', new Headers())), version }));
`;

/** The SDK summarizer of ctxkit/providers works through the project's openai of major `major`. */
async function expectSdkSummary(project: string, major: string) {
  const ls = await exec('npm', ['ls', 'openai', 'ctxkit'], { cwd: project });
  expect(ls.code, ls.stdout + ls.stderr).toBe(0);
  await writeFile(join(project, 'sdk.mjs'), summarizeScript);
  const r = await exec(process.execPath, ['sdk.mjs'], { cwd: project });
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.version.split('.')[0]).toBe(major);
  expect(out).toMatchObject({
    summary: 'via the sdk',
    usage: { inputTokens: 3, outputTokens: 2 },
    retry503: true,
  });
  // This SDK's client and module fit ctxkit/providers' structural types (skipLibCheck: the SDK's own
  // declarations are slow to check and not ctxkit's; the assignments are checked in full).
  await writeFile(
    join(project, 'sdk-fits.ts'),
    `import OpenAI from 'openai';\nimport { createOpenAISummarizer, openAIEmbedder } from 'ctxkit/providers';\n${sdkFitsScript}`,
  );
  const options = {
    strict: true,
    module: 'node16',
    moduleResolution: 'node16',
    target: 'ES2022',
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: options, files: ['sdk-fits.ts'] }),
  );
  const tsc = await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });
  expect(tsc.stdout + tsc.stderr).toBe('');
}

/** The model calls an example printed (`model call k: n messages, c characters`). */
function modelCalls(stdout: string): Array<{ messages: number; characters: number }> {
  return [...stdout.matchAll(/^model call \d+: (\d+) messages, (\d+) characters$/gm)].map((m) => ({
    messages: Number(m[1]),
    characters: Number(m[2]),
  }));
}

/**
 * The AI SDK example: twelve reads of a 23,000-character file at a 32K window. Sent whole, the last
 * prompt would hold about 276,000 characters; every prompt ctxkit sends stays under 4 characters a token
 * of the window (a bound from the characters the mock model saw, not from ctxkit's own count).
 */
function expectAiSdkExample(r: Exec) {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('13 steps: Read all twelve files.');
  const seen = modelCalls(r.stdout);
  expect(seen).toHaveLength(13);
  expect(Math.max(...seen.map((c) => c.characters))).toBeLessThan(4 * 32_000);
  // It did reduce: the last prompt holds under half of the twelve outputs read whole (276,000 characters).
  // Since the prompt cache work the reduction happens as each output arrives (cut once, never rewritten
  // later), so the messages are all still there and no prompt holds fewer than the one before it.
  expect(seen.at(-1)!.characters).toBeLessThan((12 * 23_000) / 2);
}

/** AI SDK 5 has no ToolLoopAgent: `generateText` with `prepareStep`, on its MockLanguageModelV2. */
const aiSdk5Script = `import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { ctxkitPrepareStep } from 'ctxkit/ai-sdk';
let step = 0;
const sizes = [];
const model = new MockLanguageModelV2({
  provider: 'anthropic.messages',
  doGenerate: async ({ prompt }) => {
    step++;
    sizes.push(JSON.stringify(prompt).length);
    const content = step <= 12
      ? [{ type: 'tool-call', toolCallId: 'call_' + step, toolName: 'read', input: JSON.stringify({ path: 'f' + step }) }]
      : [{ type: 'text', text: 'done' }];
    return { content, finishReason: step <= 12 ? 'tool-calls' : 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] };
  },
});
const tools = { read: tool({ inputSchema: jsonSchema({ type: 'object' }), execute: async () => 'export const value = compute(input, options);\\n'.repeat(500) }) };
const result = await generateText({ model, tools, stopWhen: stepCountIs(20), prompt: 'read them', prepareStep: ctxkitPrepareStep({ contextWindow: 32000, tools }) });
console.log(JSON.stringify({ steps: result.steps.length, text: result.text, max: Math.max(...sizes) }));
`;

/**
 * Mastra 0.x (what npm gives on Node 20) has no per-step processor hook: the processor says so, as the
 * cause of Mastra's "Input processor error" (a plain AI SDK 4 model object; `generateLegacy` runs it).
 */
const mastra0Script = `import { Agent } from '@mastra/core/agent';
import { ctxkitProcessor } from 'ctxkit/mastra';
const model = { specificationVersion: 'v1', provider: 'mock', modelId: 'mock', defaultObjectGenerationMode: 'json',
  doGenerate: async () => ({ text: 'ok', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 }, rawCall: { rawPrompt: null, rawSettings: {} } }) };
const agent = new Agent({ name: 'reader', instructions: 'Read.', model, inputProcessors: [ctxkitProcessor({ contextWindow: 32000 })] });
try { await agent.generateLegacy('hello'); console.log(JSON.stringify({ ran: true })); }
catch (e) { console.log(JSON.stringify({ code: e.cause?.code, message: e.cause?.message })); }
`;

/**
 * Each framework entry's example agent, from the installed packages, beside the framework versions
 * users have: npm's default resolution on this Node (Node 20 picks ai 6 for \`npm i ai\` and Mastra 0.24
 * for \`npm i @mastra/core ai\`) and the current majors (ai 7, Mastra 1: they declare Node 22, and npm
 * installs them here with an engine warning). The framework is installed first, then ctxkit, with no flag.
 */
describe('next to the agent frameworks', () => {
  it('installs next to ai 6, langchain, the Agents SDK and openai 6 and runs the AI SDK, LangChain and Agents SDK examples and the SDK summarizer', async () => {
    const { project } = await installNextTo(c, 'with-node20-frameworks', [
      'ai',
      'langchain',
      '@langchain/core',
      '@openai/agents',
      'openai@6',
    ]);
    const versions = await Promise.all(
      ['ai', 'langchain', '@openai/agents', 'openai'].map((n) => installedVersion(project, n)),
    );
    console.log(
      `with-node20-frameworks: ai ${versions[0]}, langchain ${versions[1]}, @openai/agents ${versions[2]}, openai ${versions[3]}`,
    );
    if (Number(process.versions.node.split('.')[0]) < 22) expect(versions[0]!.split('.')[0]).toBe('6');
    await expectSdkSummary(project, '6');
    expectAiSdkExample(await runExample(project, 'ai-sdk/agent'));
    const lc = await runExample(project, 'langchain/agent', ['32000']);
    expect(lc.code, lc.stderr).toBe(0);
    expect(lc.stdout).toContain('9 model calls, 0 rule violations: Done: every part read.');
    const agents = await runExample(project, 'openai-agents/agent', ['32000']);
    expect(agents.code, agents.stderr).toBe(0);
    expect(agents.stdout).toContain('9 model calls, 0 rule violations: Done: every part read.');
  }, 600_000);

  it('installs next to ai 7, Mastra 1 and openai 7 and runs the AI SDK and Mastra examples and the SDK summarizer', async () => {
    const { project } = await installNextTo(c, 'with-current-majors', ['ai@7', '@mastra/core@1', 'openai@7']);
    const versions = await Promise.all(
      ['ai', '@mastra/core', 'openai'].map((n) => installedVersion(project, n)),
    );
    console.log(`with-current-majors: ai ${versions[0]}, @mastra/core ${versions[1]}, openai ${versions[2]}`);
    expect(versions.map((v) => v.split('.')[0])).toEqual(['7', '1', '7']);
    await expectSdkSummary(project, '7');
    expectAiSdkExample(await runExample(project, 'ai-sdk/agent'));
    const mastra = await runExample(project, 'mastra/agent');
    expect(mastra.code, mastra.stderr).toBe(0);
    expect(mastra.stdout).toContain('13 steps: Read all twelve files.');
    const seen = modelCalls(mastra.stdout);
    expect(Math.max(...seen.map((s) => s.characters))).toBeLessThan(4 * 32_000);
  }, 600_000);

  it('installs next to ai 5 and reduces a generateText run through prepareStep', async () => {
    const { project } = await installNextTo(c, 'with-ai-5', ['ai@5']);
    await writeFile(join(project, 'ai5.mjs'), aiSdk5Script);
    const r = await exec(process.execPath, ['ai5.mjs'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ steps: 13, text: 'done' });
    expect(out.max).toBeLessThan(4 * 32_000);
  }, 300_000);

  it("installs next to Mastra as this Node resolves 'npm i @mastra/core ai' and runs or names the version it needs", async () => {
    const { project } = await installNextTo(c, 'with-mastra-default', ['@mastra/core', 'ai']);
    const mastra = await installedVersion(project, '@mastra/core');
    console.log(`with-mastra-default: @mastra/core ${mastra}, ai ${await installedVersion(project, 'ai')}`);
    if (mastra.startsWith('0.')) {
      // Node 20: Mastra 0.24 and ai 4. The core installs; the processor says which Mastra it needs.
      await writeFile(join(project, 'mastra0.mjs'), mastra0Script);
      const r = await exec(process.execPath, ['mastra0.mjs'], { cwd: project });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.code).toBe('unsupported');
      expect(out.message).toContain('ctxkitProcessor needs @mastra/core 1.x');
    } else {
      const r = await runExample(project, 'mastra/agent');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('13 steps: Read all twelve files.');
    }
  }, 600_000);
});

describe('with the optional peers installed', () => {
  it('names better-sqlite3 when the SQLite stores are opened without it', async () => {
    await linkOptionalPeers(c.project, ['drizzle-orm']);
    await write(
      'no-sqlite.mjs',
      `import { createFsBlobStore, openSqlite } from 'ctxkit/node';
let error;
try { openSqlite({ path: ':memory:' }); } catch (e) { error = e.message; }
console.log(JSON.stringify({ blobs: typeof createFsBlobStore, error }));
`,
    );
    const r = await node(['no-sqlite.mjs']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.blobs).toBe('function');
    expect(out.error).toContain('the SQLite stores need the optional package better-sqlite3');
  });

  it('opens the SQLite stores (migrations shipped in dist) and loads the providers', async () => {
    await linkOptionalPeers(c.project, [
      'better-sqlite3',
      'gpt-tokenizer',
      'openai',
      '@types/better-sqlite3',
      '@types/node',
    ]);
    await write(
      'full.mjs',
      `import { openSqlite, createSqliteSessionStore } from 'ctxkit/node';
import { createOpenAISummarizer, openAIEmbedder } from 'ctxkit/providers';
import { createTiktokenCounter } from 'ctxkit/tokens';
const handle = openSqlite({ path: ':memory:' });
const store = createSqliteSessionStore(handle);
const tables = handle.client.prepare("select name from sqlite_master where type = 'table'").all().map((t) => t.name);
const o200k = await createTiktokenCounter('o200k_base');
console.log(JSON.stringify({ tables, store: typeof store.append, summarizer: createOpenAISummarizer({ model: 'm' }).name,
  embedder: openAIEmbedder({ apiKey: 'k' }).dimensions, tokens: o200k.countText('hello world') }));
handle.close();
`,
    );
    const r = await node(['full.mjs']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.tables).toContain('sessions');
    expect(out).toMatchObject({ store: 'function', summarizer: 'openai', embedder: 1536, tokens: 2 });
  });

  it.each(['node16', 'bundler'] as const)(
    'type-checks ctxkit/node and ctxkit/providers under %s',
    async (resolution) => {
      await write(
        'full.ts',
        `import { createDeterministicSummarizer } from 'ctxkit';
import { createFsBlobStore, createSqliteSessionStore, openSqlite } from 'ctxkit/node';
import { createOpenAISummarizer, openAIEmbedder, summarizerFromEnv } from 'ctxkit/providers';
import OpenAI from 'openai';
export const blobs = createFsBlobStore({ dir: '/tmp/x' });
export const sessions = createSqliteSessionStore(openSqlite({ path: ':memory:' }));
export const s = createOpenAISummarizer({ model: 'm', baseURL: 'http://127.0.0.1:1/v1' });
export const e = openAIEmbedder({ apiKey: 'k' });
export const env = summarizerFromEnv({}, { fallback: createDeterministicSummarizer() });
${sdkFitsScript}`,
      );
      // skipLibCheck here: drizzle-orm's own declarations do not pass without it (its gel and mysql
      // drivers import packages that are not installed), and checking openai's and Node's is slow.
      // ctxkit's core declarations are checked without it above.
      const r = await tsc(`full-${resolution}`, resolution, ['full.ts'], ['node'], true);
      expect(r.stdout + r.stderr).toBe('');
      expect(r.code).toBe(0);
    },
  );

  it.each(['node16', 'bundler'] as const)(
    'type-checks typed openai and @anthropic-ai/sdk calls with ctxkit tools and messages, no casts, under %s',
    async (resolution) => {
      await linkOptionalPeers(c.project, ['openai', '@anthropic-ai/sdk', '@types/node']);
      await write(
        'sdk-types.ts',
        `import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { createPipeline, fromOpenAI, toAnthropic, toOpenAI } from 'ctxkit';

const openaiTools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'ls', description: 'list files', parameters: { type: 'object' } } },
];
const responsesTools: OpenAI.Responses.Tool[] = [
  { type: 'function', name: 'ls', parameters: { type: 'object' }, strict: false },
];
const anthropicTools: Anthropic.Messages.Tool[] = [
  { name: 'ls', description: 'list files', input_schema: { type: 'object' } },
];
const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
const pipeline = createPipeline({ preset: 'default', budget: { contextWindow: 128_000 } });

export async function callBoth(openai: OpenAI, anthropic: Anthropic) {
  const run = await pipeline.prepare({ messages: fromOpenAI(history), tools: openaiTools });
  await pipeline.prepare({ messages: run.send, tools: responsesTools });
  await pipeline.prepare({ messages: run.send, tools: anthropicTools });
  const chat = await openai.chat.completions.create({
    model: 'gpt-4o',
    messages: toOpenAI(run.send, { system: 'You are terse.' }),
    tools: openaiTools,
  });
  const request = toAnthropic(run.send, { system: 'You are terse.' });
  const params: Anthropic.Messages.MessageCreateParamsNonStreaming = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: request.messages,
    tools: anthropicTools,
  };
  if (request.system !== undefined) params.system = request.system;
  const message = await anthropic.messages.create(params);
  return [chat.choices.length, message.content.length];
}
`,
      );
      // skipLibCheck: the SDKs' own declarations are slow to check and not ctxkit's; the assignments in
      // sdk-types.ts are checked in full.
      const r = await tsc(`sdk-${resolution}`, resolution, ['sdk-types.ts'], ['node'], true);
      expect(r.stdout + r.stderr).toBe('');
      expect(r.code).toBe(0);
    },
  );
});
