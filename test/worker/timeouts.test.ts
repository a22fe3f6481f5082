import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS, upstreamTimeouts } from '../../src/worker/proxy/timeouts.ts';

const headers = (h: Record<string, string>) => new Headers(h);

describe('upstreamTimeouts', () => {
  it("lets a call shorten its timeouts, and lengthen them up to the defaults or the operator's longer values only", () => {
    expect(
      upstreamTimeouts({} as never, 'openai', headers({ 'x-ctxkit-first-byte-timeout-ms': '1000' })),
    ).toEqual({
      ...DEFAULT_TIMEOUTS,
      firstByteMs: 1000,
    });
    expect(() =>
      upstreamTimeouts({} as never, 'openai', headers({ 'x-ctxkit-idle-timeout-ms': '3600000' })),
    ).toThrow(expect.objectContaining({ code: 'invalid_input', path: 'headers.x-ctxkit-idle-timeout-ms' }));
    const short = { UPSTREAM_IDLE_TIMEOUT_MS: '5000' } as never;
    expect(upstreamTimeouts(short, 'openai', headers({ 'x-ctxkit-idle-timeout-ms': '60000' })).idleMs).toBe(
      60_000,
    );
    expect(() =>
      upstreamTimeouts(short, 'openai', headers({ 'x-ctxkit-idle-timeout-ms': '200000' })),
    ).toThrow(/at most 120000 ms/);
    const capped = { UPSTREAM_MAX_IDLE_TIMEOUT_MS: '5000' } as never;
    expect(() => upstreamTimeouts(capped, 'openai', headers({ 'x-ctxkit-idle-timeout-ms': '6000' }))).toThrow(
      /at most 5000 ms/,
    );
  });

  it('lets a call go up to the ceiling the operator sets above its default', () => {
    const env = {
      UPSTREAM_MAX_FIRST_BYTE_TIMEOUT_MS: '900000',
      UPSTREAM_OPENAI_MAX_IDLE_TIMEOUT_MS: '600000',
    } as never;
    const got = upstreamTimeouts(
      env,
      'openai',
      headers({ 'x-ctxkit-first-byte-timeout-ms': '900000', 'x-ctxkit-idle-timeout-ms': '600000' }),
    );
    expect(got).toEqual({ firstByteMs: 900_000, idleMs: 600_000 });
    expect(() =>
      upstreamTimeouts(env, 'anthropic', headers({ 'x-ctxkit-idle-timeout-ms': '600000' })),
    ).toThrow(/at most 120000 ms/);
  });
});
