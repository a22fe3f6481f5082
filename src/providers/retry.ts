/**
 * Retries with exponential backoff on 429 and 5xx, honouring `retry-after-ms` / `retry-after` (capped).
 * The SDK's own retry loop sleeps with a private timer and random jitter, so it runs with
 * `maxRetries: 0` and this loop, whose sleep, clock and randomness are injected, does the retrying.
 * The SDK's error classes are read from the SDK once it is loaded (`loadOpenAI`), so this file imports
 * without `openai` installed.
 */
import { loadedSdk } from './openai-loader.ts';

export interface RetryOptions {
  /** Retries after the first attempt. @default 2 */
  maxRetries: number;
  /** First backoff delay, doubled each retry. @default 500 */
  initialDelayMs: number;
  /** Cap on any delay, the server's `retry-after` included. @default 30000 */
  maxDelayMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1): the delay is scaled by `1 − 0.25·random()`. */
  random: () => number;
  /** Clock for HTTP-date `retry-after` values. */
  now: () => number;
  signal?: AbortSignal;
  /** Called before each sleep, e.g. to log. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

/** Abortable `setTimeout` sleep. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether an error from the SDK deserves another attempt; timeouts and aborts do not. False for
 * anything that is not an SDK error, and for everything until the SDK is loaded (`loadOpenAI`, or the
 * first call of the summarizer or embedder), since no SDK error exists before.
 */
export function isRetryable(error: unknown): boolean {
  const sdk = loadedSdk();
  if (!sdk) return false;
  if (error instanceof sdk.APIUserAbortError || error instanceof sdk.APIConnectionTimeoutError) return false;
  if (error instanceof sdk.APIError && error.status !== undefined)
    return error.status === 429 || error.status >= 500;
  return error instanceof sdk.APIConnectionError;
}

function apiError(error: unknown) {
  const sdk = loadedSdk();
  return sdk && error instanceof sdk.APIError ? error : undefined;
}

/** The delay the server asked for, in ms, or undefined. */
export function retryAfterMs(headers: Headers | undefined, now: () => number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

export function backoffDelay(
  attempt: number,
  options: Pick<RetryOptions, 'initialDelayMs' | 'maxDelayMs' | 'random'>,
): number {
  const base = Math.min(options.initialDelayMs * 2 ** attempt, options.maxDelayMs);
  return base * (1 - 0.25 * options.random());
}

function describe(error: unknown): string {
  const status = apiError(error)?.status;
  if (status !== undefined) return `HTTP ${status}`;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `attempt` until it succeeds, fails with a non-retryable error, or retries run out. */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryOptions,
): Promise<{ value: T; retries: number }> {
  for (let n = 0; ; n++) {
    try {
      return { value: await attempt(n), retries: n };
    } catch (error) {
      if (n >= options.maxRetries || !isRetryable(error) || options.signal?.aborted) throw error;
      const api = apiError(error);
      const asked = api ? retryAfterMs(api.headers, options.now) : undefined;
      const delayMs = Math.min(asked ?? backoffDelay(n, options), options.maxDelayMs);
      options.onRetry?.({ attempt: n + 1, delayMs, reason: describe(error) });
      await options.sleep(delayMs, options.signal);
    }
  }
}
