/**
 * A call's usage is counted in the tenant's tally once: by its id in the tenant object (`countCall`),
 * so the Worker's second send after a lost reply (`tenantTally`) adds nothing twice.
 */
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../src/core/index.ts';
import type { Env } from '../../src/worker/env.ts';
import {
  countCall,
  EMPTY_TALLY,
  MAX_RECENT_CALLS,
  type StoredTally,
  storedTally,
} from '../../src/worker/limits/token-tally.ts';
import { TALLY_ATTEMPTS, tenantTally } from '../../src/worker/proxy/call-tally.ts';

const USAGE: Usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 4000, cacheWriteTokens: 50 };

describe('countCall', () => {
  it('counts a call once when the same call id is sent again', () => {
    const once = countCall(storedTally(undefined), 'call-1', USAGE, 1000)!;
    expect(once.tokens).toEqual({
      calls: 1,
      input: 100,
      cacheRead: 4000,
      cacheWrite: 50,
      output: 10,
      since: 1000,
    });
    expect(countCall(once, 'call-1', USAGE, 2000)).toBeUndefined();
    expect(countCall(once, 'call-2', USAGE, 2000)!.tokens.calls).toBe(2);
  });

  it('keeps the ids of the last MAX_RECENT_CALLS calls when more are counted', () => {
    let t: StoredTally = storedTally(undefined);
    for (let i = 0; i <= MAX_RECENT_CALLS; i++) t = countCall(t, `c${i}`, USAGE, i)!;
    expect(t.recent).toHaveLength(MAX_RECENT_CALLS);
    expect(t.recent[0]).toBe('c1');
    expect(t.tokens.calls).toBe(MAX_RECENT_CALLS + 1);
  });

  it('reads a tally stored before call ids were kept as sums with no ids', () => {
    const old = { ...EMPTY_TALLY, calls: 7, input: 70 };
    expect(storedTally(old)).toEqual({ tokens: old, recent: [] });
  });
});

/** A tenant namespace whose object counts with `countCall` and loses the first `lost` replies. */
function fakeTenants(lost: number) {
  let stored = storedTally(undefined);
  let sends = 0;
  const object = {
    async tally(callId: string, usage: Usage) {
      sends++;
      const next = countCall(stored, callId, usage, Date.now());
      if (next) stored = next;
      if (sends <= lost) throw new Error('Network connection lost.');
      return next !== undefined;
    },
  };
  const env = { TENANTS: { idFromName: (n: string) => n, get: () => object } } as unknown as Env;
  return { env, sends: () => sends, tokens: () => stored.tokens };
}

describe('tenantTally', () => {
  it('sends a count again when its reply is lost, and the call is counted once', async () => {
    const t = fakeTenants(1);
    await tenantTally(t.env, 'acme')!('call-9', USAGE);
    expect(t.sends()).toBe(2);
    expect(t.tokens().calls).toBe(1);
    expect(t.tokens().cacheRead).toBe(4000);
  });

  it(`gives up after ${TALLY_ATTEMPTS} sends with the last error`, async () => {
    const t = fakeTenants(TALLY_ATTEMPTS);
    await expect(tenantTally(t.env, 'acme')!('call-9', USAGE)).rejects.toThrow(/connection lost/);
    expect(t.sends()).toBe(TALLY_ATTEMPTS);
    expect(t.tokens().calls).toBe(1);
  });

  it('is absent when the deployment keeps no tenant limits', () => {
    expect(tenantTally({} as Env, 'acme')).toBeUndefined();
  });
});
