/**
 * A write refused by a tenant limit, as an error that keeps what the 429 must say — the limit's
 * variable, its value, the tenant's use and when to retry — across the Durable Object boundary
 * (`session/wire.ts` carries `limit` and `retryAfterSeconds`) to the one place that answers it
 * (`errors.ts`, in the provider's shape on the proxy routes).
 */
import { CtxError } from '../../core/index.ts';

export interface QuotaLimit {
  /** The variable an operator raises. */
  name: string;
  max: number;
  used: number;
}

export class QuotaError extends CtxError {
  constructor(
    message: string,
    readonly limit: QuotaLimit,
    readonly retryAfterSeconds: number,
  ) {
    super('quota_exceeded', message, { path: limit.name });
  }
}

export function isQuotaError(error: unknown): error is QuotaError {
  return error instanceof QuotaError;
}
