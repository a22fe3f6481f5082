/**
 * Stored bytes per tenant on ctxkit's own write routes (a new session, appended messages, a new
 * memory): the request's size is let through by the tenant's object unless it would take the tenant
 * over `MAX_STORED_BYTES_PER_TENANT`, else a 429 naming the limit. Only new writes are refused:
 * reads, deletes, compaction and clean-up always run, and nothing stored is ever dropped. The proxy
 * checks the same total when a call with a session takes its place (`call-lease.ts`).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { LIMIT_VARS, limitsBound, tenantLimits } from './limit-config.ts';
import { limitResponse } from './limit-response.ts';
import { tenantStub } from './tenant-stub.ts';

/** The routes that store something new, as `METHOD path` with `:param` segments. */
export const GATED_WRITES = [
  'POST /v1/sessions',
  'POST /v1/sessions/:session/messages',
  'POST /v1/memories',
] as const;

export function storageGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!limitsBound(c.env)) return next();
    const limits = tenantLimits(c.env);
    const length = Number(c.req.header('content-length') ?? Number.NaN);
    // A body of unknown length (chunked) counts one byte here; the recount sees what it stored.
    const bytes = Number.isSafeInteger(length) && length > 0 ? length : 1;
    const got = await tenantStub(c.env, c.get('tenant')).reserve({
      tenant: c.get('tenant'),
      bytes,
      cap: limits.storedBytes,
      recountMs: limits.recountMs,
    });
    if (got.ok) return next();
    const name = LIMIT_VARS.storedBytes;
    return limitResponse(c.req.path, {
      code: 'storage_quota_exceeded',
      message: `this tenant stores ${got.used} bytes; ${bytes} more would pass its limit of ${got.max} (${name}): nothing new is stored until data is deleted or the limit raised`,
      retryAfterSeconds: Math.ceil(limits.recountMs / 1000),
      limit: { name, max: got.max, used: got.used },
    });
  };
}
