import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { toFtsQuery } from '../../../src/core/index.ts';
import {
  createSqliteMemoryStore,
  createSqliteSessionStore,
  openSqlite,
} from '../../../src/db/sqlite/index.ts';

const handle = openSqlite({ path: ':memory:' });
const memories = createSqliteMemoryStore(handle);
const sessions = createSqliteSessionStore(handle);
afterAll(() => handle.close());

const operatorish = fc.constantFrom(
  '"',
  "'",
  '*',
  '-',
  '+',
  '^',
  ':',
  '(',
  ')',
  'NEAR',
  'AND',
  'OR',
  'NOT',
  '部署',
  ' ',
  '\\',
  '{',
  '}',
);
const query = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.array(fc.oneof(operatorish, fc.string({ maxLength: 5 })), { maxLength: 12 }).map((a) => a.join('')),
);

describe('toFtsQuery', () => {
  it('never makes SQLite FTS5 raise a syntax error, whatever the user typed', async () => {
    await memories.put({
      tenant: 't',
      id: 'm',
      project: '',
      userId: '',
      type: 'project',
      class: 'durable',
      title: 'near and or not',
      content: 'deploy "quoted" text 部署',
      pinned: false,
      expiresAt: null,
      createdAt: 0,
      updatedAt: 0,
      lastSurfacedAt: null,
    });
    await sessions.create({ tenant: 't', id: 's', project: 'p' });
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const hits = await memories.keywordSearch('t', toFtsQuery(q), {}, 5);
        expect(hits.length).toBeLessThanOrEqual(1);
        await sessions.recall('t', { project: 'p', excludeSession: 'x', query: q });
      }),
      { seed: 6, numRuns: 300 },
    );
  });
});
