import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  backoffDelay,
  isRetryable,
  loadOpenAI,
  retryAfterMs,
  withRetries,
} from '../../../src/providers/index.ts';

// The SDK's error classes are recognised once ctxkit has loaded the SDK (the summarizer does on its first call).
beforeAll(async () => {
  await loadOpenAI();
});

const status = (code: number, headers: Record<string, string> = {}) =>
  APIError.generate(code, { message: `status ${code}` }, undefined, new Headers(headers));

describe('retryAfterMs', () => {
  const now = () => Date.parse('2026-01-01T00:00:00Z');

  it('reads retry-after-ms before retry-after', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '120', 'retry-after': '5' }), now)).toBe(120);
  });

  it('reads seconds, fractions included, from retry-after', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
  });

  it('reads an HTTP date against the injected clock', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7000);
  });

  it('returns undefined when the header is absent or unreadable', () => {
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
  });
});

describe('isRetryable', () => {
  it('retries 429, 5xx and connection errors but not 4xx, timeouts or aborts', () => {
    expect([429, 500, 502, 503].map((c) => isRetryable(status(c)))).toEqual([true, true, true, true]);
    expect([400, 401, 404, 422].map((c) => isRetryable(status(c)))).toEqual([false, false, false, false]);
    expect(isRetryable(new APIConnectionError({ message: 'reset' }))).toBe(true);
    expect(isRetryable(new APIConnectionTimeoutError())).toBe(false);
    expect(isRetryable(new APIUserAbortError())).toBe(false);
    expect(isRetryable(new SyntaxError('bad json'))).toBe(false);
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap and scales by the jitter', () => {
    const o = { initialDelayMs: 500, maxDelayMs: 3000, random: () => 0 };
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, o))).toEqual([500, 1000, 2000, 3000]);
    expect(backoffDelay(0, { ...o, random: () => 1 })).toBe(375);
  });
});

describe('withRetries', () => {
  const base = { maxRetries: 3, initialDelayMs: 10, maxDelayMs: 1000, random: () => 0, now: () => 0 };

  it('returns the value and the number of retries when a later attempt succeeds', async () => {
    const sleeps: number[] = [];
    let n = 0;
    const out = await withRetries(
      async () => {
        n += 1;
        if (n < 3) throw status(503);
        return 'done';
      },
      { ...base, sleep: async (ms) => void sleeps.push(ms) },
    );
    expect(out).toEqual({ value: 'done', retries: 2 });
    expect(sleeps).toEqual([10, 20]);
  });

  it('throws the last error when retries run out', async () => {
    let n = 0;
    const run = withRetries(
      async () => {
        n += 1;
        throw status(500);
      },
      { ...base, maxRetries: 1, sleep: async () => {} },
    );
    await expect(run).rejects.toThrow('500');
    expect(n).toBe(2);
  });
});
