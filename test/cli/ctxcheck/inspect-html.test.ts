import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ctxcheck, tempDir } from './helpers.ts';

/** A real Claude Code session with one production compaction (../shared/data/README.md). */
const TRAJECTORY = join(
  import.meta.dirname,
  '../../../../shared/data/trajectories/claude-code/258c7280-ae70-4798-800f-63464d01a85d.json',
);
const present = existsSync(TRAJECTORY);

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

describe.skipIf(!present)('ctxcheck inspect --html', () => {
  it('writes one self-contained file with no external URL when given a real Claude Code trajectory', async () => {
    const r = await ctxcheck(['inspect', TRAJECTORY, '--window', '60000', '--html', 'view.html'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wrote view\.html \(\d+ KB, self-contained\)/);
    const html = await readFile(join(dir, 'view.html'), 'utf8');
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|@import|url\(/i);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // Both views, the stage reports and the journal of what the pre-flight removed at a 60K window.
    expect(html).toContain('id="before-window"');
    expect(html).toContain('id="after-window"');
    expect(html).toMatch(/Journal \(\d+ entries\)/);
    expect(html).toContain('data-tokens="tool-result"');
    expect(html).toContain('data-tokens="summary"');
  });

  it('exits 2 with one line when the output cannot be written', async () => {
    const r = await ctxcheck(['inspect', TRAJECTORY, '--html', 'no/such/dir/view.html'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--html: cannot write');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.skipIf(present)('ctxcheck inspect --html (real data)', () => {
  it.skip(`skipped: ${TRAJECTORY} is absent (see ../shared/data/README.md)`, () => {});
});
