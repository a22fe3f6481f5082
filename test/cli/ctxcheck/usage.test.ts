/**
 * Usage errors stop before the command runs (exit 2, one line on stderr, nothing on stdout),
 * `--version`, missing positionals named, and the `--llm` provider from the openai SDK's variables.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { benchUnavailable } from '../../../src/cli/cli.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../support/fake-openai-server.ts';
import { ctxcheck, tempDir, writeJson } from './helpers.ts';

const root = resolve(import.meta.dirname, '../../..');
const fixture = join(root, 'fixtures/default/default-current-request-survives-compaction.json');
let dir: string;

beforeAll(async () => {
  dir = await tempDir();
  await writeJson(
    dir,
    'chat.json',
    Array.from({ length: 25 }, (_, i) => [
      { role: 'user', content: `question ${i + 1} ${'word '.repeat(200)}` },
      { role: 'assistant', content: `answer ${i + 1}` },
    ]).flat(),
  );
});

describe('ctxcheck usage errors', () => {
  it.each([
    [['replay', fixture, '--bogus'], 'ctxcheck: unknown option --bogus'],
    [['replay', fixture, '--jsno'], 'ctxcheck: unknown option --jsno; did you mean --json?'],
    [
      ['compact', 'chat.json', '--window', '1000', '--presett', 'default'],
      'ctxcheck: unknown option --presett; did you mean --preset?',
    ],
    [['replay', fixture, '--preset', 'turbo'], 'ctxcheck: --preset: "turbo" is not one of "default"'],
    [['compact', 'chat.json', '--window', '1000', '--json'], 'ctxcheck: unknown option --json'],
    [['compact', 'chat.json', '--window', '1000', '--preset', 'turbo'], 'ctxcheck: --preset: "turbo"'],
    [['validate', fixture, '--bogus'], 'ctxcheck: unknown option --bogus'],
    [['frobnicate'], 'ctxcheck: Unknown argument: frobnicate'],
    [['compact'], 'ctxcheck: missing <transcript>'],
    [['inspect'], 'ctxcheck: missing <transcript>'],
    [['replay'], 'ctxcheck: missing <globs>'],
    [['bench'], 'ctxcheck: missing <what>'],
    [['inspect', 'chat.json', '--html', 'v.html', '--json'], 'ctxcheck: --html and --json: choose one'],
    [
      ['bench', 'nosuch'],
      'ctxcheck: unknown benchmark nosuch; choose tokens, memory, compaction, recall or cache',
    ],
    // A mistyped option before the positional takes it as its value: still the option is named.
    [['inspect', '--jsno', 'chat.json'], 'ctxcheck: unknown option --jsno; did you mean --json?'],
    [['compact', '--windw', '1000', 'chat.json'], 'ctxcheck: unknown option --windw; did you mean --window?'],
    // An option given twice reached its command as an array (`value.split is not a function`).
    [
      ['compact', 'chat.json', '--window', '1000', '--window', '2000'],
      'ctxcheck: --window given more than once',
    ],
    [
      ['bench', 'cache', '--windows', '32000', '--windows', '64000'],
      'ctxcheck: --windows given more than once',
    ],
  ])('%j exits 2 with one line and no command output', async (args, line) => {
    const r = await ctxcheck(args, dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.startsWith(line)).toBe(true);
    expect(r.stderr).toContain('(ctxcheck --help for usage)');
  });

  it.each(['cache', 'compaction', 'recall'])(
    'bench %s --data <a file> exits 2 with one line naming --data',
    async (what) => {
      const r = await ctxcheck(['bench', what, '--data', 'chat.json'], dir);
      expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
        2,
        '',
        [`ctxcheck: --data: ${join(dir, 'chat.json')} is not a directory`],
      ]);
    },
  );

  it('bench compaction --windows above 10M exits 2 naming --windows, as bench cache and recall do', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'no-sessions'), { recursive: true });
    const r = await ctxcheck(
      ['bench', 'compaction', '--data', 'no-sessions', '--windows', '99999999999'],
      dir,
    );
    expect([r.code, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      ["ctxcheck: --windows: invalid value '99999999999'"],
    ]);
  });

  it('says where the journal went, or that it was not written, when compact runs without --out', async () => {
    const r = await ctxcheck(['compact', 'chat.json', '--window', '4000', '--allow-block'], dir);
    expect(r.stderr).toMatch(/\d+ journal entries \(not written: pass --out FILE or --journal FILE\)/);
  });

  it('does not write <out>.journal.json beside a device when --out is one (/dev/null)', async () => {
    const { existsSync, rmSync } = await import('node:fs');
    const beside = '/dev/null.journal.json';
    const r = await ctxcheck(
      ['compact', 'chat.json', '--window', '4000', '--allow-block', '--out', '/dev/null'],
      dir,
    );
    const wrote = existsSync(beside);
    if (wrote) rmSync(beside); // what the code before this test did, as root
    expect(r.code, r.stderr).toBe(0);
    expect(wrote).toBe(false);
    expect(r.stdout + r.stderr).toMatch(/journal entries \(not written: pass --journal FILE\)/);
  });

  it('shows examples and where the docs are with --help', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const r = await ctxcheck(['--help'], dir);
      expect(r.code).toBe(0);
      const help = log.mock.calls.map((c) => String(c[0])).join('\n');
      expect(help).toContain('Examples:');
      expect(help).toContain("ctxcheck replay 'fixtures/**/*.json'");
      expect(help).toContain('ctxcheck inspect session.jsonl --window 128000');
      expect(help).toMatch(/Docs: .*docs\/cli\.md/);
      // Every benchmark `bench` holds, not the first three (it said "tokens, memory, compaction").
      expect(help).toContain('Benchmarks (tokens, memory, compaction, recall, cache)');
    } finally {
      log.mockRestore();
    }
  });

  it('runs the command when the arguments are valid', async () => {
    const r = await ctxcheck(['replay', fixture], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 passed, 0 failed');
  });

  it('prints the package version with --version', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const r = await ctxcheck(['--version'], dir);
      expect(r.code).toBe(0);
      expect(log.mock.calls.map((c) => String(c[0]))).toEqual([pkg.version]);
    } finally {
      log.mockRestore();
    }
  });
});

describe('benchUnavailable', () => {
  const error = Object.assign(new Error("Cannot find package 'drizzle-orm' imported from /x.mjs"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
  it('names every package bench memory needs that is missing, not only the first one imported', () => {
    expect(benchUnavailable('memory', error, () => false)).toBe(
      'the optional packages better-sqlite3 and drizzle-orm are not installed (npm install better-sqlite3 drizzle-orm)',
    );
    expect(benchUnavailable('memory', error, (n) => n === 'drizzle-orm')).toBe(
      'the optional package better-sqlite3 is not installed (npm install better-sqlite3)',
    );
  });

  it('gives the import error when the packages a benchmark needs are there', () => {
    expect(benchUnavailable('tokens', error, () => true)).toBe(
      'the optional package drizzle-orm is not installed (npm install drizzle-orm)',
    );
  });
});

describe('ctxcheck compact --llm', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ fallback: { kind: 'status', status: 500, message: 'down' } });
  });
  afterAll(() => server.close());

  it('calls OPENAI_BASE_URL and warns on stderr when the deterministic fallback answers', async () => {
    const r = await ctxcheck(
      ['compact', 'chat.json', '--preset', 'cowagent', '--window', '100000', '--llm', '--out', 'llm.json'],
      dir,
      {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-test',
        CTXKIT_LLM_MODEL: 'm',
        CTXKIT_LLM_MAX_RETRIES: '0',
      },
    );
    expect(r.code).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(r.stderr).toContain(`summarizer: summaries by m at ${server.baseURL}`);
    expect(r.stderr).toMatch(
      /ctxcheck: warning: LLM summary failed in \S+ \(.*500.*\); used the fallback summarizer/,
    );
    const journal = JSON.parse(await readFile(join(dir, 'llm.json.journal.json'), 'utf8')) as {
      events: Array<{ type: string }>;
      reports: Array<{ detail?: string }>;
    };
    expect(journal.events.some((e) => e.type === 'summary-fallback')).toBe(true);
    expect(journal.reports.some((x) => x.detail?.includes('LLM summary failed, fallback used'))).toBe(true);
  });
});
