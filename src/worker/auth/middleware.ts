/**
 * Bearer-key authentication: resolves the tenant, key id and scopes, or answers before any route
 * runs — 401 for a missing, unknown, revoked or expired key, 429 once an address or a key id failed
 * too often (`auth-throttle.ts`), 403 for a key without the route's scope (`scopes.ts`); then the
 * per-key and per-tenant request limits (429). The Anthropic proxy route also takes the key as
 * `x-api-key`, as the Anthropic SDK sends it.
 */
import type { MiddlewareHandler } from 'hono';
import { isCtxError } from '../../core/index.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { limitResponse } from '../limits/limit-response.ts';
import { authenticate, bearerKey, cachedPrincipal, keyIdOf } from './api-keys.ts';
import { authFailureLimits, recordAuthFailure, type Throttled, throttled } from './auth-throttle.ts';
import { overLimit, rateLimited } from './rate-limits.ts';
import { requiredScope, requireScope } from './scopes.ts';

/** The client's address as Cloudflare (and Miniflare under `npm start`) reports it; `''` when unknown. */
export function clientAddress(c: AppContext): string {
  return c.req.header('cf-connecting-ip') ?? '';
}

export function throttledResponse(c: AppContext, t: Throttled): Response {
  const who = t.on === 'address' ? 'this address' : 'this key id';
  return limitResponse(c.req.path, {
    code: 'rate_limited',
    message: `too many failed authentications from ${who} (${t.limit} a minute, ${t.name}); retry after ${t.retryAfterSeconds} s`,
    retryAfterSeconds: t.retryAfterSeconds,
    limit: { name: t.name, max: t.limit },
  });
}

export function requireApiKey(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const limits = authFailureLimits(c.env);
    const address = clientAddress(c);
    const apiKey = c.req.path.startsWith('/v1/proxy/anthropic/') ? c.req.header('x-api-key') : undefined;
    const header = c.req.header('authorization') ?? (apiKey !== undefined ? `Bearer ${apiKey}` : null);
    let key = '';
    try {
      key = bearerKey(header);
    } catch (error) {
      const t = throttled(limits, address, undefined);
      if (t) return throttledResponse(c, t);
      await recordAuthFailure(c.env, limits, address, undefined);
      throw error;
    }
    const keyId = keyIdOf(key);
    const t = throttled(limits, address, keyId);
    // Throttled: no D1 lookup; only a key this isolate verified within the minute gets through.
    const principal = t ? await cachedPrincipal(key) : undefined;
    if (t && !principal) return throttledResponse(c, t);
    let who = principal;
    if (!who)
      try {
        who = await authenticate(c.env.DB, key);
      } catch (error) {
        if (isCtxError(error, 'unauthorized')) await recordAuthFailure(c.env, limits, address, keyId);
        throw error;
      }
    const needed = requiredScope(c.req.method, c.req.path);
    if (needed) requireScope(who.scopes, needed);
    const over = await overLimit(c.env, who.keyId, who.tenant);
    if (over) return rateLimited(c, over);
    c.set('tenant', who.tenant);
    c.set('keyId', who.keyId);
    c.set('scopes', who.scopes);
    c.set('keyExpiresAt', who.expiresAt);
    await next();
  };
}
