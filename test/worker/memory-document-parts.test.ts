/**
 * Memory documents in bounded parts (src/worker/session/memory-documents.ts). A document is one D1
 * row and production D1 refuses a row over 2 MB (local D1 does not, so the bound is checked here, not
 * the refusal): `MEMORY.md` and a busy day's `memory/YYYY-MM-DD.md` were appended to without end, and
 * past 2 MB every flush — with the proxied turn or `prepare` that made it — would fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendFlush,
  DOCUMENT_PART_BYTES,
  d1DocumentAppender,
  documentPart,
} from '../../src/worker/session/memory-documents.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker();
});
afterAll(async () => {
  await w?.dispose();
});

const bytes = (s: string) => new TextEncoder().encode(s).byteLength;

async function documents(tenant: string) {
  const db = await w.db();
  const { results } = await db
    .prepare('SELECT path, content FROM documents WHERE tenant = ?1 ORDER BY path')
    .bind(tenant)
    .all<{ path: string; content: string }>();
  return results;
}

describe('documentPart', () => {
  it('names part n beside the document, before its extension', () => {
    expect(documentPart('MEMORY.md', 1)).toBe('MEMORY.md');
    expect(documentPart('MEMORY.md', 2)).toBe('MEMORY.2.md');
    expect(documentPart('memory/2026-11-28.md', 12)).toBe('memory/2026-11-28.12.md');
  });
});

describe('d1DocumentAppender', () => {
  it('keeps every part within its bound and every section once, in order, when appends pass it', async () => {
    const db = await w.db();
    const appender = d1DocumentAppender(db, 4096);
    const sections = Array.from({ length: 40 }, (_, i) => `## s${i}\n${'é'.repeat(150)} ${i}\n`);
    const paths: string[] = [];
    for (const s of sections) paths.push(await appender.append('parts', 'MEMORY.md', s, '# Memory\n', i0()));
    const rows = await documents('parts');
    expect(rows.length).toBeGreaterThan(1);
    for (const r of rows) expect(bytes(r.content)).toBeLessThanOrEqual(4096);
    // Parts in order 1, 2, 3 …: every section once, in the order written, each headed.
    const ordered = [...new Set(paths)];
    expect(ordered).toEqual(ordered.map((_, i) => documentPart('MEMORY.md', i + 1)));
    const byPath = new Map(rows.map((r) => [r.path, r.content]));
    const all = ordered.map((p) => byPath.get(p)!.replace('# Memory\n', '')).join('');
    expect(all).toBe(sections.join(''));
  });

  it('holds a day of 3 MB of flushes in parts under D1’s 2 MB row, with the default bound', async () => {
    const db = await w.db();
    const appender = d1DocumentAppender(db);
    const daily = 'x'.repeat(30_000);
    for (let i = 0; i < 100; i++)
      await appendFlush(
        appender,
        'busy',
        { reason: 'daily', date: '2026-11-28', time: '23:55', daily },
        i0(),
      );
    const rows = await documents('busy');
    const total = rows.reduce((n, r) => n + bytes(r.content), 0);
    expect(total).toBeGreaterThan(3_000_000);
    for (const r of rows) expect(bytes(r.content)).toBeLessThanOrEqual(DOCUMENT_PART_BYTES);
    expect(DOCUMENT_PART_BYTES).toBeLessThan(2_000_000);
  });

  it('cuts one section larger than a part, saying so, rather than failing every flush after it', async () => {
    const db = await w.db();
    const appender = d1DocumentAppender(db, 2048);
    const path = await appender.append('huge', 'MEMORY.md', 'y'.repeat(10_000), '', i0());
    const [row] = await documents('huge');
    expect(row!.path).toBe(path);
    expect(bytes(row!.content)).toBeLessThanOrEqual(2048);
    expect(row!.content).toMatch(/\[cut: the section passed one memory document's \d+ bytes\]/);
  });
});

let clock = 0;
function i0() {
  clock += 1;
  return clock;
}
