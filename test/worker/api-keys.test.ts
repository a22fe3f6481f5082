import { describe, expect, it } from 'vitest';
import { bearerKey, generateApiKey, sha256Hex, timingSafeEqual } from '../../src/worker/auth/api-keys.ts';

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
