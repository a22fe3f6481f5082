/**
 * Operator authentication for `/v1/admin/*`: `Authorization: Bearer <ADMIN_TOKEN>`, the Worker secret.
 * Without the secret the whole surface does not exist (404, as for an unknown route); a wrong or
 * missing token is a 401, counted with the address's failed authentications (`auth-throttle.ts`).
 * Tokens are compared as SHA-256 digests in constant time.
 */
import type { MiddlewareHandler } from 'hono';
import { CtxError } from '../../core/index.ts';
import type { AppEnv } from '../http/context.ts';
import { bearerKey, sha256Hex, timingSafeEqual } from './api-keys.ts';
import { authFailureLimits, recordAuthFailure, throttled } from './auth-throttle.ts';
import { clientAddress, throttledResponse } from './middleware.ts';

/** The token of a Bearer header, or `''` when the header has none. */
function bearerKeyOr(header: string): string {
  try {
    return bearerKey(header);
  } catch {
    return '';
  }
}

export function requireAdminToken(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const secret = c.env.ADMIN_TOKEN;
    if (typeof secret !== 'string' || secret === '')
      throw new CtxError('not_found', 'no such route', { path: 'url' });
    const limits = authFailureLimits(c.env);
    const address = clientAddress(c);
    const t = throttled(limits, address, undefined);
    if (t) return throttledResponse(c, t);
    const given = c.req.header('authorization') ?? null;
    // Equal-length digests: the time taken says nothing about the token's length or prefix.
    const ok =
      given !== null && timingSafeEqual(await sha256Hex(bearerKeyOr(given)), await sha256Hex(secret));
    if (!ok) {
      await recordAuthFailure(c.env, limits, address, undefined);
      bearerKey(given);
      throw new CtxError('unauthorized', 'invalid admin token', { path: 'headers.authorization' });
    }
    await next();
  };
}
