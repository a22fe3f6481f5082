/** Bearer-key authentication: resolves the tenant and key id, or answers 401 before any route runs. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { authenticate, bearerKey } from './api-keys.ts';

export function requireApiKey(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { tenant, keyId } = await authenticate(c.env.DB, bearerKey(c.req.header('authorization') ?? null));
    c.set('tenant', tenant);
    c.set('keyId', keyId);
    await next();
  };
}
