/**
 * Requests per minute, per key and per tenant, on Cloudflare's rate limiting binding
 * (`[[ratelimits]]` in wrangler.toml; Miniflare runs the same binding under `npm start`). A request
 * over either limit is a 429 with `Retry-After`, before any route runs — in the provider's own error
 * shape on the proxy routes, so the SDKs back off as they do for the provider. Unbound limiters are
 * off. See docs/decisions/0009-service-limits.md.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { limitResponse } from '../limits/limit-response.ts';

/** The binding's interface (`RateLimit` in @cloudflare/workers-types). */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** Both limiters count per minute (`period = 60`). */
export const RETRY_AFTER_SECONDS = 60;

function limiter(value: unknown): RateLimiter | undefined {
  return typeof (value as RateLimiter | undefined)?.limit === 'function' ? (value as RateLimiter) : undefined;
}

/** Which limit the request is over, or `undefined`. Checked per key first, then per tenant. */
export async function overLimit(
  env: AppEnv['Bindings'],
  keyId: string,
  tenant: string,
): Promise<'key' | 'tenant' | undefined> {
  const perKey = limiter(env.KEY_LIMITER);
  if (perKey && !(await perKey.limit({ key: `key:${keyId}` })).success) return 'key';
  const perTenant = limiter(env.TENANT_LIMITER);
  if (perTenant && !(await perTenant.limit({ key: `tenant:${tenant}` })).success) return 'tenant';
  return undefined;
}

/** The 429: the provider's shape on its proxy routes, ctxkit's elsewhere. */
export function rateLimited(c: Context<AppEnv>, which: 'key' | 'tenant'): Response {
  const message = `too many requests for this ${which === 'key' ? 'API key' : 'tenant'}; retry after ${RETRY_AFTER_SECONDS} s`;
  return limitResponse(c.req.path, { code: 'rate_limited', message, retryAfterSeconds: RETRY_AFTER_SECONDS });
}
