import { describe, expect, it } from 'vitest';
import {
  type ApiKeyRow,
  authenticate,
  bearerKey,
  forgetVerifiedKey,
  generateApiKey,
  sha256Hex,
  timingSafeEqual,
} from '../../src/worker/auth/api-keys.ts';

/** A D1 stand-in answering the key lookup from `rows`; `gate` (when set) holds the answer back. */
function fakeDb(rows: Map<string, ApiKeyRow>, gate?: Promise<void>) {
  let lookups = 0;
  const db = {
    prepare: () => ({
      bind: (id: string) => ({
        first: async () => {
          lookups++;
          const row = rows.get(id) ?? null;
          await gate;
          return row;
        },
      }),
    }),
  } as unknown as D1Database;
  return { db, lookups: () => lookups };
}

describe('generateApiKey', () => {
  it('stores only the SHA-256 of the key it returns', async () => {
    const { key, row } = await generateApiKey('acme');
    expect(key).toMatch(/^ctx_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(row).toEqual({ id: key.split('_')[1], tenant: 'acme', hash: await sha256Hex(key) });
    expect(JSON.stringify(row)).not.toContain(key.slice(17));
  });
});

describe('timingSafeEqual', () => {
  it('tells equal from different strings, whatever their lengths', () => {
    expect([
      timingSafeEqual('abc', 'abc'),
      timingSafeEqual('abc', 'abd'),
      timingSafeEqual('abc', 'abcd'),
      timingSafeEqual('', ''),
    ]).toEqual([true, false, false, true]);
  });
});

describe('bearerKey', () => {
  it('extracts the token of a Bearer header', () => {
    expect(bearerKey('Bearer ctx_x')).toBe('ctx_x');
    expect(bearerKey('bearer   ctx_y ')).toBe('ctx_y');
  });

  it('throws unauthorized without one', () => {
    expect(() => bearerKey(null)).toThrow(/missing bearer token/);
    expect(() => bearerKey('Token abc')).toThrow(/missing bearer token/);
  });
});

describe('authenticate', () => {
  const NOW = 1_700_000_000_000;

  it('answers from the cache, then rejects at once when the key is forgotten', async () => {
    const { key, row } = await generateApiKey('acme');
    const rows = new Map([[row.id, row]]);
    const fake = fakeDb(rows);
    expect(await authenticate(fake.db, key, NOW)).toEqual({
      tenant: 'acme',
      keyId: row.id,
      scopes: ['read', 'write', 'proxy', 'admin'],
      expiresAt: null,
    });
    rows.delete(row.id);
    expect((await authenticate(fake.db, key, NOW + 1)).tenant).toBe('acme');
    expect(fake.lookups()).toBe(1);
    forgetVerifiedKey(row.hash, NOW + 2);
    await expect(authenticate(fake.db, key, NOW + 3)).rejects.toThrow(/invalid API key/);
  });

  it('rejects a key revoked while its lookup was in flight, and does not cache it', async () => {
    const { key, row } = await generateApiKey('acme');
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fake = fakeDb(new Map([[row.id, row]]), gate);
    const pending = authenticate(fake.db, key, NOW);
    forgetVerifiedKey(row.hash, NOW);
    release();
    await expect(pending).rejects.toThrow(/invalid API key/);
    await expect(authenticate(fakeDb(new Map()).db, key, NOW + 1)).rejects.toThrow(/invalid API key/);
  });
});
