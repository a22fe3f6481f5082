/**
 * What crosses the Durable Object RPC boundary: plain data only. Errors travel as values (`Outcome`)
 * because an error's class and fields do not survive RPC; the Worker turns them back into
 * `CtxError` and maps them to HTTP in one place.
 */
import { CtxError, type CtxErrorCode, isCtxError } from '../../core/index.ts';
import { isQuotaError, QuotaError, type QuotaLimit } from '../limits/quota-error.ts';

export interface SessionKey {
  tenant: string;
  session: string;
}

export interface WireError {
  code: CtxErrorCode;
  message: string;
  path?: string;
  /** A refused write's limit and when to retry (`QuotaError`). */
  limit?: QuotaLimit;
  retryAfterSeconds?: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WireError };

/** Runs `fn`; a `CtxError` becomes an error outcome, anything else is rethrown (→ 500, logged). */
export async function outcome<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (!isCtxError(error)) throw error;
    const prefix = error.path ? `${error.path}: ` : '';
    const message =
      prefix && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    const wire: WireError = { code: error.code, message };
    if (error.path) wire.path = error.path;
    if (isQuotaError(error)) {
      wire.limit = error.limit;
      wire.retryAfterSeconds = error.retryAfterSeconds;
    }
    return { ok: false, error: wire };
  }
}

export function unwrap<T>(result: Outcome<T>): T {
  if (result.ok) return result.value;
  const { code, message, path, limit, retryAfterSeconds } = result.error;
  if (limit && retryAfterSeconds !== undefined) throw new QuotaError(message, limit, retryAfterSeconds);
  throw new CtxError(code, message, path === undefined ? {} : { path });
}
