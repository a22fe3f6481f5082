import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures');

/** Numbered rules of SEED-RULES.md in the scope of the pipeline and the memory store. */
const RULES = [
  ...Array.from({ length: 12 }, (_, i) => `1.${i + 1}`),
  '2.1',
  '2.2',
  '2.3',
  '3.1',
  '3.2',
  '3.3',
  ...Array.from({ length: 11 }, (_, i) => `4.${i + 1}`),
  ...Array.from({ length: 6 }, (_, i) => `5.${i + 1}`),
];

async function load(): Promise<Array<{ file: string; rule?: string; source?: string }>> {
  const out: Array<{ file: string; rule?: string; source?: string }> = [];
  for (const area of await readdir(FIXTURES, { withFileTypes: true })) {
    if (!area.isDirectory()) continue;
    for (const f of await readdir(join(FIXTURES, area.name))) {
      if (!f.endsWith('.json')) continue;
      const json = JSON.parse(await readFile(join(FIXTURES, area.name, f), 'utf8')) as {
        rule?: string;
        source?: string;
      };
      out.push({ file: `${area.name}/${f}`, ...json });
    }
  }
  return out;
}

describe('fixtures', () => {
  it('cover every numbered rule in scope with at least one fixture', async () => {
    const covered = new Set((await load()).map((f) => f.rule));
    expect(RULES.filter((r) => !covered.has(r))).toEqual([]);
  });

  it('are named after their rule when they prove one', async () => {
    const misnamed = (await load()).filter(
      (f) => f.rule && !f.file.startsWith('default/') && !basename(f.file).startsWith(`${f.rule}-`),
    );
    expect(misnamed.map((f) => f.file)).toEqual([]);
  });

  it('name their source when they replay a real trajectory', async () => {
    const replays = (await load()).filter((f) => f.file.startsWith('replays/'));
    expect(replays.length).toBeGreaterThan(0);
    expect(replays.filter((f) => !f.source?.includes('(MIT)')).map((f) => f.file)).toEqual([]);
  });
});
