import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchMemory, toFtsQuery } from '../../../src/core/index.ts';
import { createSqliteMemoryStore, MIGRATIONS_DIR, openSqlite } from '../../../src/db/sqlite/index.ts';

/** The migrations folder as it was before `0002_fts_porter` (journal cut after 0001). */
function migrationsBefore0002(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-mig-'));
  mkdirSync(join(dir, 'meta'));
  for (const f of ['0000_init.sql', '0001_fts.sql']) cpSync(join(MIGRATIONS_DIR, f), join(dir, f));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  journal.entries = journal.entries.filter((e) => e.tag === '0000_init' || e.tag === '0001_fts');
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  return dir;
}

describe('migration 0002_fts_porter', () => {
  it('rebuilds the chunk index with stemming and the tenant key, keeping every row', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ctxkit-db-')), 'old.db');
    const old = openSqlite({ path, migrationsDir: migrationsBefore0002() });
    const chunk = (tenant: string, id: string, text: string) => ({
      tenant,
      id,
      project: '',
      userId: '',
      source: 'MEMORY.md',
      startLine: 1,
      endLine: 1,
      text,
      date: null,
      embedding: null,
      model: null,
    });
    const before = createSqliteMemoryStore(old);
    await before.replaceChunks('a', 'MEMORY.md', [chunk('a', 'a1', 'She runs marathons')]);
    await before.replaceChunks('b', 'MEMORY.md', [chunk('b', 'b1', 'He runs too')]);
    const ftsSql = (handle: typeof old) =>
      (
        handle.client.prepare("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").get() as {
          sql: string;
        }
      ).sql;
    expect(ftsSql(old)).not.toContain('porter');
    old.close();

    const now = openSqlite({ path });
    try {
      expect(ftsSql(now)).toContain('porter');
      const store = createSqliteMemoryStore(now);
      expect((await store.keywordRanks('a', toFtsQuery('running'), {}, 10)).map((h) => h.id)).toEqual(['a1']);
      expect((await store.keywordRanks('b', toFtsQuery('run'), {}, 10)).map((h) => h.id)).toEqual(['b1']);
      expect((await searchMemory(store, 'a', 'marathon running')).map((h) => h.chunk.id)).toEqual(['a1']);
      // The triggers keep the new index in step with later writes.
      await store.replaceChunks('a', 'MEMORY.md', [chunk('a', 'a2', 'swimming laps')]);
      expect(await store.keywordRanks('a', toFtsQuery('runs'), {}, 10)).toEqual([]);
      expect((await store.keywordRanks('a', toFtsQuery('swim'), {}, 10)).map((h) => h.id)).toEqual(['a2']);
    } finally {
      now.close();
    }
  });
});
