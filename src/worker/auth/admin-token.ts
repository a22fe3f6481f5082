/**
 * Operator authentication for `/v1/admin/*`: `Authorization: Bearer <ADMIN_TOKEN>`, the Worker secret.
 * Without the secret the whole surface does not exist (404, as for an unknown route); a wrong or
 * missing token is a 401. Tokens are compared as SHA-256 digests in constant time.
 */
import type { MiddlewareHandler } from 'hono';
import { CtxError } from '../../core/index.ts';
import type { AppEnv } from '../http/context.ts';
import { bearerKey, sha256Hex, timingSafeEqual } from './api-keys.ts';

export function requireAdminToken(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const secret = c.env.ADMIN_TOKEN;
    if (typeof secret !== 'string' || secret === '')
      throw new CtxError('not_found', 'no such route', { path: 'url' });
    const given = bearerKey(c.req.header('authorization') ?? null);
    // Equal-length digests: the time taken says nothing about the token's length or prefix.
    if (!timingSafeEqual(await sha256Hex(given), await sha256Hex(secret)))
      throw new CtxError('unauthorized', 'invalid admin token', { path: 'headers.authorization' });
    await next();
  };
}
