/**
 * The 429 of every limit: on a proxy route in the provider's own error shape (the SDKs raise their
 * usual rate-limit error and honour `Retry-After`), elsewhere ctxkit's JSON error, which also names
 * the limit (`limit.name` is the variable an operator raises) and the tenant's figures.
 */

export type LimitCode =
  | 'rate_limited'
  | 'too_many_in_flight'
  | 'storage_quota_exceeded'
  | 'session_quota_exceeded';

export interface LimitRefusal {
  code: LimitCode;
  message: string;
  retryAfterSeconds: number;
  /** The limit refused on: its variable or binding, its value, and the tenant's use of it. */
  limit?: { name: string; max: number; used?: number };
}

function body(path: string, r: LimitRefusal): unknown {
  if (path.startsWith('/v1/proxy/anthropic/'))
    return { type: 'error', error: { type: 'rate_limit_error', message: r.message } };
  if (path.startsWith('/v1/proxy/openai/')) {
    // OpenAI answers an exhausted quota with 429 `insufficient_quota`, a rate with `rate_limit_exceeded`.
    const quota = r.code === 'storage_quota_exceeded' || r.code === 'session_quota_exceeded';
    return {
      error: {
        message: r.message,
        type: quota ? 'insufficient_quota' : 'requests',
        param: null,
        code: quota ? 'insufficient_quota' : 'rate_limit_exceeded',
      },
    };
  }
  return { error: { code: r.code, message: r.message, path: null, ...(r.limit ? { limit: r.limit } : {}) } };
}

export function limitResponse(path: string, r: LimitRefusal): Response {
  return new Response(JSON.stringify(body(path, r)), {
    status: 429,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'retry-after': String(r.retryAfterSeconds),
    },
  });
}
