import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ctxcheck, tempDir, writeJson } from './helpers.ts';

let dir: string;
const turns = (n: number) =>
  Array.from({ length: n }, (_, i) => [
    { role: 'user', content: `question ${i + 1} ${'word '.repeat(200)}` },
    { role: 'assistant', content: `answer ${i + 1}` },
  ]).flat();

beforeAll(async () => {
  dir = await tempDir();
  await writeJson(dir, 'chat.json', turns(25));
  await writeJson(dir, 'small.json', {
    system: 'be brief',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ],
  });
});

describe('ctxcheck inspect', () => {
  it("previews the tokens compact sends, the spilled outputs' notices naming the files compact writes", async () => {
    const sample = join(import.meta.dirname, '../../../samples/coding-session.json');
    const home = process.env.HOME;
    process.env.HOME = dir; // compact's default blob folder is under it
    try {
      const seen = await ctxcheck(['inspect', sample, '--window', '8000', '--json'], dir);
      const next = JSON.parse(seen.stdout).next;
      const done = await ctxcheck(['compact', sample, '--window', '8000', '--out', 'sample-out.json'], dir);
      expect(done.code).toBe(0);
      // Before, the preview's notices named no file: 5,555 tokens previewed against 5,608 sent.
      expect(done.stdout).toContain(`→ ${next.tokensAfter} tokens`);
      expect(next.reports[0]).toMatchObject({ stage: 'output-truncation', status: 'applied' });
    } finally {
      process.env.HOME = home;
    }
  });

  it('prints tokens per role, the usage bar and the next pre-flight when given a transcript', async () => {
    const r = await ctxcheck(['inspect', 'chat.json', '--preset', 'cowagent', '--window', '100000'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(openai, 50 messages, 25 turns; counter cowagent)');
    expect(r.stdout).toMatch(/\[[█░┆]{40}\]/);
    expect(r.stdout).toMatch(/^ {2}user +25 +/m);
    expect(r.stdout).toContain('next pre-flight (preset cowagent)');
    expect(r.stdout).toMatch(/cowagent-trim +applied/);
    expect(r.stdout).toContain('50 → 26 messages');
  });

  it('reports the level of what it will send when the transcript carries usage of another context', async () => {
    // An imported transcript: the recorded usage measured a context of 300 tokens, the text is ~5.5K.
    const big = turns(25).map((m, i) =>
      i === 49 ? { ...m, usage: { prompt_tokens: 300, completion_tokens: 5, total_tokens: 305 } } : m,
    );
    await writeJson(dir, 'imported.json', big);
    const r = await ctxcheck(['inspect', 'imported.json', '--json', '--window', '4000'], dir);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      tokens: number;
      level: string;
      anchored: boolean;
      byRole: Array<{ tokens: number }>;
    };
    expect(report.anchored).toBe(false);
    expect(report.level).toBe('block');
    expect(report.tokens).toBeGreaterThanOrEqual(report.byRole.reduce((n, x) => n + x.tokens, 0));
  });

  it('prints the report as JSON when --json is given', async () => {
    const r = await ctxcheck(
      ['inspect', 'small.json', '--json', '--window', '32000', '--preset', 'kosmokrator'],
      dir,
    );
    const report = JSON.parse(r.stdout) as {
      format: string;
      messages: number;
      byRole: Array<{ role: string }>;
      next: { messagesAfter: number };
    };
    expect([report.format, report.messages, report.next.messagesAfter]).toEqual(['anthropic', 3, 3]);
  });

  it('exits 2 and leaves the transcript as it was when --html names the transcript itself', async () => {
    const before = JSON.stringify(turns(2));
    await writeJson(dir, 'page-self.json', before);
    const r = await ctxcheck(['inspect', 'page-self.json', '--html', './page-self.json'], dir);
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      '',
      [`ctxcheck: --html: ${join(dir, 'page-self.json')} is the transcript itself; write the page elsewhere`],
    ]);
    expect(await readFile(join(dir, 'page-self.json'), 'utf8')).toBe(before);
  });

  it("exits 2 with one line naming the smallest window when the preset's reserve leaves nothing", async () => {
    for (const command of ['inspect', 'compact']) {
      const r = await ctxcheck([command, 'small.json', '--window', '16000', '--preset', 'kosmokrator'], dir);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        'ctxcheck: preset kosmokrator: budget.contextWindow: a 16000-token window leaves nothing to send after reserveOutput 16000; the smallest that works is 16001',
      ]);
    }
  });

  it('exits 2 without a stack trace when the transcript is not readable', async () => {
    await writeJson(dir, 'broken.json', '[{"role": "wizard", "content": "x"}]');
    const r = await ctxcheck(['inspect', 'broken.json'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('messages[0].role');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('ctxcheck compact', () => {
  it('writes the compacted conversation in the input format and the journal when --out is given', async () => {
    const r = await ctxcheck(
      ['compact', 'chat.json', '--preset', 'cowagent', '--window', '100000', '--out', 'out.json'],
      dir,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8')) as Array<{
      role: string;
      content: string;
    }>;
    expect(out.length).toBe(26);
    expect(out[0]?.content).toMatch(/^question 13 /);
    const journal = JSON.parse(await readFile(join(dir, 'out.json.journal.json'), 'utf8')) as {
      journal: Array<{ action: string }>;
    };
    expect(journal.journal.filter((e) => e.action === 'summarized').length).toBe(24);
    expect(r.stdout).toContain('50 → 26 messages');
  });

  it('exits 1 when the result is still at the block level, 0 with --allow-block', async () => {
    const args = ['compact', 'chat.json', '--preset', 'co-cli', '--window', '500', '--out', 'blocked.json'];
    const r = await ctxcheck(args, dir);
    expect(r.stdout).toContain('(level block)');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--allow-block');
    const allowed = await ctxcheck([...args, '--allow-block'], dir);
    expect(allowed.code).toBe(0);
  });

  it('drops the provider usage instead of re-shaping it into a wrong anchor', async () => {
    const withUsage = turns(25).map((m, i) =>
      m.role === 'assistant'
        ? { ...m, usage: { input_tokens: 100 + i, output_tokens: 7, cache_read_input_tokens: 3 } }
        : m,
    );
    await writeJson(dir, 'usage.json', withUsage);
    const r = await ctxcheck(
      ['compact', 'usage.json', '--preset', 'cowagent', '--window', '100000', '--out', 'usage-out.json'],
      dir,
    );
    expect(r.code).toBe(0);
    const text = await readFile(join(dir, 'usage-out.json'), 'utf8');
    expect(text).not.toContain('usage');
    expect(text).not.toContain('prompt_tokens');
    expect(r.stdout).toMatch(/provider usage of \d+ messages dropped/);
  });

  it.each([
    [['--out', '.'], '--out', 'EISDIR'],
    [['--out', 'no-such-dir/out.json'], '--out', 'ENOENT'],
    [['--out', 'named.json', '--journal', 'no-such-dir/j.json'], '--journal', 'ENOENT'],
  ])('%j exits 2 with one line naming the option it could not write', async (args, option, code) => {
    const r = await ctxcheck(['compact', 'small.json', '--window', '8000', ...args], dir);
    const file = join(dir, args.at(-1)!);
    expect([r.code, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      [`ctxcheck: ${option}: cannot write ${file.replace(/\/\.$/, '')}: ${code}`],
    ]);
  });

  it('exits 2 with one line when --instructions is given without --force, which alone reads it', async () => {
    const r = await ctxcheck(
      ['compact', 'small.json', '--window', '8000', '--instructions', 'keep the API'],
      dir,
    );
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      '',
      ['ctxcheck: --instructions focuses a manual compaction: pass --force with it'],
    ]);
    const forced = await ctxcheck(
      ['compact', 'small.json', '--window', '8000', '--force', '--instructions', 'keep the API'],
      dir,
    );
    expect(forced.code, forced.stderr).toBe(0);
  });

  it('exits 2 with one line naming --blobs when it is a file, before any output is cut unsaved', async () => {
    const r = await ctxcheck(['compact', 'chat.json', '--window', '8000', '--blobs', 'small.json'], dir);
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      '',
      [`ctxcheck: --blobs: ${join(dir, 'small.json')} is not a directory`],
    ]);
  });

  it.each([
    [['--out', 'self.json'], '--out'],
    [['--out', 'other.json', '--journal', './self.json'], '--journal'],
  ])('%j exits 2 and leaves the transcript as it was when it would overwrite it', async (args, option) => {
    const before = JSON.stringify(turns(25), null, 2);
    await writeJson(dir, 'self.json', before);
    const r = await ctxcheck(
      ['compact', 'self.json', '--preset', 'cowagent', '--window', '100000', ...args],
      dir,
    );
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      '',
      [
        `ctxcheck: ${option}: ${join(dir, 'self.json')} is the transcript itself, which the journal points into; write elsewhere`,
      ],
    ]);
    expect(await readFile(join(dir, 'self.json'), 'utf8')).toBe(before);
  });

  it('exits 2 when --window is missing', async () => {
    const r = await ctxcheck(['compact', 'chat.json'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('window');
  });
});

describe('ctxcheck inspect and compact number options', () => {
  it.each([
    [['--window', '99999999999'], '--window must be an integer from 1 to 10000000, got 99999999999'],
    [['--window', '1e23'], '--window must be an integer from 1 to 10000000, got 1e+23'],
    [['--window', '-5'], '--window must be an integer from 1 to 10000000, got -5'],
  ])('%j exits 2 with one line naming --window, for inspect and compact', async (args, line) => {
    for (const command of ['inspect', 'compact']) {
      const r = await ctxcheck([command, 'small.json', ...args], dir);
      expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([2, '', [`ctxcheck: ${line}`]]);
    }
  });

  it.each([
    ['-3', 'got -3'],
    ['2.5', 'got 2.5'],
    ['abc', 'got NaN'],
  ])('inspect --top %s exits 2 with one line naming --top', async (top, got) => {
    const r = await ctxcheck(['inspect', 'chat.json', '--window', '100000', '--top', top], dir);
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      '',
      [`ctxcheck: --top must be an integer from 0 to 1000000, ${got}`],
    ]);
  });

  it('lists as many of the largest items as --top says when it is in range', async () => {
    const r = await ctxcheck(['inspect', 'chat.json', '--window', '100000', '--top', '3', '--json'], dir);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { largest: unknown[] }).largest).toHaveLength(3);
  });
});
