/**
 * The one error family of ctxkit. Outcomes are data (stage reports); only bad config,
 * bad input and broken invariants throw, and they throw a `CtxError`.
 */
export type CtxErrorCode =
  | 'invalid_input'
  | 'invalid_config'
  | 'invariant_violation'
  | 'not_found'
  | 'conflict'
  | 'unauthorized'
  | 'forbidden'
  | 'payload_too_large'
  | 'provider_error'
  | 'context_overflow'
  | 'storage_error'
  | 'unsupported'
  /** A limit of the caller's (stored bytes…) would be passed; nothing was stored. */
  | 'quota_exceeded'
  /** The credentials are valid but do not allow this (an API key without the route's scope). */
  | 'insufficient_scope';

export interface CtxErrorOptions {
  /** JSON path of the offending value, e.g. `messages[3].tool_calls[0].function.arguments`. */
  path?: string;
  cause?: unknown;
}

export class CtxError extends Error {
  override readonly name = 'CtxError';
  readonly code: CtxErrorCode;
  readonly path: string | undefined;

  constructor(code: CtxErrorCode, message: string, options: CtxErrorOptions = {}) {
    super(options.path ? `${options.path}: ${message}` : message, { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }
}

export function isCtxError(value: unknown, code?: CtxErrorCode): value is CtxError {
  return value instanceof CtxError && (code === undefined || value.code === code);
}

/** Joins JSON path segments: `['messages', 3, 'role']` → `messages[3].role`. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? String(s) : `.${String(s)}`;
  }
  return out === '' ? '(root)' : out;
}
