/**
 * Bearer-key authentication: resolves the tenant and key id, or answers 401 before any route runs;
 * then the per-key and per-tenant request limits (429).
 * The Anthropic proxy route also takes the key as `x-api-key`, as the Anthropic SDK sends it.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { authenticate, bearerKey } from './api-keys.ts';
import { overLimit, rateLimited } from './rate-limits.ts';

export function requireApiKey(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const apiKey = c.req.path.startsWith('/v1/proxy/anthropic/') ? c.req.header('x-api-key') : undefined;
    const header = c.req.header('authorization') ?? (apiKey !== undefined ? `Bearer ${apiKey}` : null);
    const { tenant, keyId } = await authenticate(c.env.DB, bearerKey(header));
    const over = await overLimit(c.env, keyId, tenant);
    if (over) return rateLimited(c, over);
    c.set('tenant', tenant);
    c.set('keyId', keyId);
    await next();
  };
}
