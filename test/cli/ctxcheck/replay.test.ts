import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ctxcheck, failing, passing, tempDir, writeJson } from './helpers.ts';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  await writeJson(dir, 'pass.json', passing);
  await writeJson(dir, 'fail.json', failing);
  await writeJson(dir, 'bad-path.json', {
    name: 'bad',
    preset: 'cowagent',
    steps: [{ do: 'prepare', expect: { level: 'high' } }],
  });
  await writeJson(dir, 'bad-json.json', '{ "name": "x",\n  "preset": }');
});

describe('ctxcheck replay', () => {
  it('exits 0 with one PASS line and the summary line when every expectation holds', async () => {
    const r = await ctxcheck(['replay', 'pass.json'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PASS {2}pass\.json {2}two turns stay/m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('exits 1 and prints a diff per failed expectation when a fixture fails', async () => {
    const r = await ctxcheck(['replay', 'pass.json', 'fail.json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL  fail.json');
    expect(r.stdout).toContain('✗ steps[1].expect.count: 1 messages, expected 3');
    expect(r.stdout).toContain('- expected goodbye');
    expect(r.stdout).toContain('+ actual   hello');
    expect(r.stdout).toMatch(/^1 passed, 1 failed$/m);
  });

  it('exits 2 naming the file, JSON path and reason without a stack trace when a fixture is invalid', async () => {
    const r = await ctxcheck(['replay', 'bad-path.json', 'bad-json.json'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/INVALID {2}bad-path\.json: steps\[0\]\.expect\.level: /);
    expect(r.stdout).toMatch(/INVALID {2}bad-json\.json: \(file\): invalid JSON at line 2/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  it('expands quoted globs and filters by name when --filter is given', async () => {
    const r = await ctxcheck(['replay', '*.json', '--filter', 'two turns'], dir);
    expect(r.stdout).toContain('1 passed, 0 failed');
    expect(r.code).toBe(2); // the invalid files in the folder still count
  });

  it('prints JSON results when --json is given', async () => {
    const r = await ctxcheck(['replay', 'fail.json', '--json'], dir);
    const out = JSON.parse(r.stdout) as {
      passed: number;
      failed: number;
      fixtures: Array<{ failures: unknown[] }>;
    };
    expect([out.passed, out.failed, out.fixtures[0]?.failures.length]).toEqual([0, 1, 2]);
  });

  it('writes a JUnit report with one testcase per fixture when --junit is given', async () => {
    await ctxcheck(['replay', 'pass.json', 'fail.json', '--junit', 'report.xml'], dir);
    const xml = await readFile(join(dir, 'report.xml'), 'utf8');
    expect(xml.match(/<testcase /g)?.length).toBe(2);
    expect(xml).toContain('failures="1"');
  });

  it('exits 2 with one line naming --junit when the report cannot be written', async () => {
    const r = await ctxcheck(['replay', 'pass.json', '--junit', 'no-such-dir/report.xml'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `ctxcheck: --junit: cannot write ${join(dir, 'no-such-dir/report.xml')}: ENOENT`,
    ]);
  });

  it('exits 2 with one line naming --filter when its /regex/ does not compile', async () => {
    const r = await ctxcheck(['replay', 'pass.json', '--filter', '/[/'], dir);
    expect([r.code, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
      2,
      '',
      ['ctxcheck: --filter: /[/ is not a regular expression: Unterminated character class'],
    ]);
  });

  it('runs the fixture under another preset when --preset is given', async () => {
    const r = await ctxcheck(['replay', 'pass.json', '--preset', 'kosmokrator'], dir);
    expect(r.stdout).toContain('✗ steps[0].expect.tokens');
  });

  it('exits 2 on a usage error', async () => {
    const r = await ctxcheck(['replay'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ctxcheck:');
  });
});

describe('ctxcheck validate', () => {
  it('lists valid fixtures and exits 0 when all are valid', async () => {
    const r = await ctxcheck(['validate', 'pass.json', 'fail.json'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 valid, 0 invalid');
  });

  it('exits 2 when a fixture breaks the schema', async () => {
    const r = await ctxcheck(['validate', 'bad-path.json'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('steps[0].expect.level');
  });

  it('exits 2 saying no fixture matched when a folder holds none, as replay does', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'empty'), { recursive: true });
    for (const command of ['validate', 'replay']) {
      const r = await ctxcheck([command, 'empty'], dir);
      expect([command, r.code, r.stderr.trim()]).toEqual([command, 2, 'no fixture matched']);
    }
  });
});

describe('ctxcheck replay with a config the pipeline rejects', () => {
  it('exits 2 and names the config field when the preset config is invalid', async () => {
    const d = await tempDir();
    await writeJson(d, 'bad-config.json', { ...passing, config: { notAStage: {} } });
    const r = await ctxcheck(['replay', 'bad-config.json'], d);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/INVALID {2}bad-config\.json: config/);
    expect(r.stdout).toContain('0 passed, 0 failed');
  });
});
