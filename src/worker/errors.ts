/**
 * The one place where errors become HTTP responses. Every `CtxError` code maps to a status here;
 * anything else is a 500 with a generic message (the details go to the log, never to the client).
 */
import { type CtxErrorCode, isCtxError } from '../core/index.ts';
import { LIMIT_VARS } from './limits/limit-config.ts';
import { limitResponse } from './limits/limit-response.ts';
import { isQuotaError } from './limits/quota-error.ts';

export const STATUS_BY_CODE = {
  invalid_input: 400,
  invalid_config: 400,
  invariant_violation: 422,
  not_found: 404,
  conflict: 409,
  unauthorized: 401,
  // Tenants never learn whether something of another tenant exists: forbidden reads as not found.
  forbidden: 404,
  payload_too_large: 413,
  provider_error: 502,
  context_overflow: 422,
  storage_error: 503,
  unsupported: 415,
  quota_exceeded: 429,
  insufficient_scope: 403,
} as const satisfies Record<CtxErrorCode, number>;

const GENERIC_5XX: Partial<Record<CtxErrorCode, string>> = {
  provider_error: 'the summarizer provider failed',
  storage_error: 'storage is unavailable',
};

/**
 * A refusal no `CtxError` code says (the core's codes are the library's): a request body that never
 * finished arriving is a 408 `request_timeout`, which clients retry.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly path: string | null,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; path: string | null };
}

export interface ErrorReply {
  status: number;
  body: ErrorBody;
}

/** Maps anything thrown to a status and a body safe to send. */
export function errorReply(error: unknown): ErrorReply {
  if (error instanceof ServiceError)
    return {
      status: error.status,
      body: { error: { code: error.code, message: error.message, path: error.path } },
    };
  if (isCtxError(error)) {
    const status = STATUS_BY_CODE[error.code] ?? 500;
    const code = error.code === 'forbidden' ? 'not_found' : error.code;
    if (status >= 500) {
      // Provider and storage failures can carry URLs or SQL: log them, send a fixed text.
      console.error(`ctxkit ${error.code}:`, error);
      return {
        status,
        body: { error: { code, message: GENERIC_5XX[error.code] ?? 'internal error', path: null } },
      };
    }
    const prefix = `${error.path}: `;
    const message =
      error.path && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    return { status, body: { error: { code, message, path: error.path ?? null } } };
  }
  console.error('ctxkit internal error:', error);
  return { status: 500, body: { error: { code: 'internal', message: 'internal error', path: null } } };
}

/**
 * The HTTP answer to `error`. A refused write (`QuotaError`) is a 429 with `Retry-After` and its
 * limit, in the provider's own shape on the proxy routes (`path`: the request's path).
 */
export function errorResponse(error: unknown, path = ''): Response {
  if (isQuotaError(error))
    return limitResponse(path, {
      code: error.limit.name === LIMIT_VARS.sessions ? 'session_quota_exceeded' : 'storage_quota_exceeded',
      message: error.message,
      retryAfterSeconds: error.retryAfterSeconds,
      limit: error.limit,
    });
  const { status, body } = errorReply(error);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="ctxkit"';
  return new Response(JSON.stringify(body), { status, headers });
}

/** A serialisable error for crossing the Durable Object RPC boundary (class identity does not survive it). */
export interface WireError {
  code: CtxErrorCode;
  message: string;
  path?: string;
}
