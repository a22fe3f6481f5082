/**
 * D1's limit on one value, enforced locally as production enforces it (src/worker/store/d1-value-limit.ts):
 * local D1 stores a value over 2,000,000 bytes that production refuses, so nothing local saw it.
 * Here over a stand-in D1 that stores whatever it is given, as local D1 does.
 */
import { describe, expect, it } from 'vitest';
import { PRODUCTION_VALUE_BYTES } from '../../src/worker/service-bounds.ts';
import { withValueLimit } from '../../src/worker/store/d1-value-limit.ts';

function localD1() {
  const bound: unknown[][] = [];
  const db = {
    prepare(query: string) {
      return {
        query,
        bind(...values: unknown[]) {
          bound.push(values);
          return { query, values };
        },
      };
    },
    async batch(statements: unknown[]) {
      return statements.map(() => ({ success: true }));
    },
  };
  return { db: db as unknown as D1Database, bound };
}

describe('withValueLimit', () => {
  it('refuses a bound value over 2,000,000 bytes as production D1 does, counting UTF-8 bytes', () => {
    const { db: raw, bound } = localD1();
    const db = withValueLimit(raw);
    const over = 'é'.repeat(PRODUCTION_VALUE_BYTES.d1 / 2 + 1);
    expect(() => db.prepare('INSERT INTO t VALUES (?1, ?2)').bind('a', over)).toThrow(
      /SQLITE_TOOBIG \(bound value 2 is 2000002 bytes; D1 takes at most 2000000\)/,
    );
    expect(() =>
      db.prepare('INSERT INTO t VALUES (?1)').bind(new Uint8Array(PRODUCTION_VALUE_BYTES.d1 + 1)),
    ).toThrow(/SQLITE_TOOBIG/);
    expect(bound).toHaveLength(0);
    db.prepare('INSERT INTO t VALUES (?1, ?2)').bind('x'.repeat(PRODUCTION_VALUE_BYTES.d1), 7);
    expect(bound).toHaveLength(1);
  });

  it('passes every other method through, and wraps one database once', async () => {
    const { db: raw } = localD1();
    const db = withValueLimit(raw);
    expect(withValueLimit(raw)).toBe(db);
    expect(await db.batch([db.prepare('SELECT 1').bind()])).toEqual([{ success: true }]);
  });
});
