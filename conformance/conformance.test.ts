/**
 * Conformance lanes: every fixture through the same `runFixture()` on Node, Deno and workerd (one
 * runtime start each), compared with `conformance/baseline.json` — the known failures per runtime,
 * each with a reason. An unexpected failure fails, and so does a baseline entry that now passes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RUNTIMES, type Runtime, runIn } from '../test/support/runtimes.ts';
import type { ConformanceResult } from './entry.ts';

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURES = join(ROOT, 'fixtures');
const ENTRY = join(ROOT, 'conformance', 'entry.ts');

type Baseline = Record<Runtime, Record<string, string>>;

async function fixtureFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await fixtureFiles(full)));
    else if (e.name.endsWith('.json') && !e.name.endsWith('.schema.json')) out.push(full);
  }
  return out.sort();
}

const results = new Map<Runtime, ConformanceResult[]>();
let baseline: Baseline;
let count = 0;

beforeAll(async () => {
  baseline = JSON.parse(await readFile(join(ROOT, 'conformance', 'baseline.json'), 'utf8')) as Baseline;
  const fixtures = await Promise.all(
    (await fixtureFiles(FIXTURES)).map(async (f) => ({
      file: relative(FIXTURES, f),
      fixture: JSON.parse(await readFile(f, 'utf8')) as unknown,
    })),
  );
  count = fixtures.length;
  for (const runtime of RUNTIMES) {
    const out = (await runIn(runtime, ENTRY, { fixtures })) as { results: ConformanceResult[] };
    results.set(runtime, out.results);
  }
});

describe.each(RUNTIMES)('conformance on %s', (runtime) => {
  it('runs every fixture when the lane starts', () => {
    expect(results.get(runtime)?.length).toBe(count);
    expect(count).toBeGreaterThanOrEqual(80);
  });

  it('fails only the fixtures listed in the baseline, each with a reason', () => {
    const known = baseline[runtime] ?? {};
    const unexpected = (results.get(runtime) ?? [])
      .filter((r) => !r.passed && !(r.file in known))
      .map((r) => `${r.file}\n    ${r.failures.join('\n    ')}`);
    expect(unexpected.join('\n\n'), `unexpected failures on ${runtime}`).toBe('');
    for (const [file, reason] of Object.entries(known))
      expect(reason.trim(), `${file} needs a reason`).not.toBe('');
  });

  it('has no stale baseline entry (a listed fixture that now passes, or no longer exists)', () => {
    const byFile = new Map((results.get(runtime) ?? []).map((r) => [r.file, r]));
    const stale = Object.keys(baseline[runtime] ?? {}).filter((file) => byFile.get(file)?.passed !== false);
    expect(
      stale,
      `stale baseline entries for ${runtime}: remove them from conformance/baseline.json`,
    ).toEqual([]);
  });

  it('reports the same failures as Node, expectation for expectation', () => {
    const node = new Map((results.get('node') ?? []).map((r) => [r.file, r.failures]));
    const differ = (results.get(runtime) ?? [])
      .filter((r) => JSON.stringify(r.failures) !== JSON.stringify(node.get(r.file)))
      .map((r) => r.file);
    expect(differ).toEqual([]);
  });
});
