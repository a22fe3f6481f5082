/**
 * `ctxcheck compact` on every Claude Code trajectory of ../shared/data: the standing-instructions
 * section pins only what a user typed, never a sentence of Claude Code's own compaction summary (a
 * user-role message the model wrote, `meta.isCompactSummary`), nor of the same summary when it comes
 * without the flag (what a proxy sees). Before the fix three sessions pinned sentences such as "Using
 * `with` instead of `case`" from it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ctxcheck, tempDir } from '../ctxcheck/helpers.ts';

const DATA = join(import.meta.dirname, '../../../../shared/data/trajectories/claude-code');
const present = existsSync(DATA);
const files = present
  ? readdirSync(DATA)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : [];

interface Raw {
  messages: Array<{ role: string; content: unknown; meta?: Record<string, unknown> }>;
}

/** Every text of the trajectory's model-written summaries. */
function summaries(raw: Raw): string[] {
  return raw.messages
    .filter((m) => m.meta?.isCompactSummary === true)
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

/** The sentences the compacted result pins as standing instructions. */
async function pinned(dir: string, file: string, window: number): Promise<string[]> {
  const out = join(dir, 'out.json');
  const r = await ctxcheck(
    ['compact', file, '--window', String(window), '--out', out, '--to', 'neutral', '--blobs', join(dir, 'b')],
    dir,
  );
  expect(r.code, r.stderr).toBe(0);
  const result = JSON.parse(await readFile(out, 'utf8')) as
    | { messages: Array<{ meta?: Record<string, unknown> }> }
    | Array<{ meta?: Record<string, unknown> }>;
  const messages = Array.isArray(result) ? result : result.messages;
  return messages.flatMap((m) =>
    m.meta?.kind === 'standing-instructions' && Array.isArray(m.meta.instructions)
      ? (m.meta.instructions as string[])
      : [],
  );
}

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

describe.skipIf(!present)('ctxcheck compact on the Claude Code trajectories', () => {
  it('pins no sentence of a model-written summary when the session compacted itself', async () => {
    let withSummary = 0;
    for (const f of files) {
      const raw = JSON.parse(await readFile(join(DATA, f), 'utf8')) as Raw;
      const texts = summaries(raw);
      if (texts.length > 0) withSummary++;
      for (const window of [16_000, 32_000]) {
        const pins = await pinned(dir, join(DATA, f), window);
        const fromSummary = pins.filter((s) => texts.some((t) => t.includes(s)));
        expect(fromSummary, `${f} at ${window}`).toEqual([]);
      }
    }
    expect(withSummary).toBeGreaterThanOrEqual(3);
  }, 600_000);

  it('pins nothing from the summary when it arrives without its flag, as through a proxy', async () => {
    for (const f of files) {
      const raw = JSON.parse(await readFile(join(DATA, f), 'utf8')) as Raw;
      const texts = summaries(raw);
      if (texts.length === 0) continue;
      for (const m of raw.messages) if (m.meta) delete m.meta.isCompactSummary;
      const bare = join(dir, `bare-${f}`);
      await writeFile(bare, JSON.stringify(raw));
      const pins = await pinned(dir, bare, 32_000);
      expect(
        pins.filter((s) => texts.some((t) => t.includes(s))),
        f,
      ).toEqual([]);
    }
  }, 300_000);
});

describe.skipIf(present)('ctxcheck compact on the Claude Code trajectories (real data)', () => {
  it.skip(`skipped: ${DATA} is absent (see ../shared/data/README.md)`, () => {});
});
