/**
 * `GET /v1/usage`: where the calling tenant stands against its limits — proxied calls in flight (per
 * session and in all) and bytes stored — with each limit and the variable that sets it; and the tokens
 * the upstream reported on every proxied call, each once, logged or not (proxy/call-tally.ts), cache
 * reads and writes apart (`tokens`).
 */
import type { Hono } from 'hono';
import { CtxError } from '../../core/index.ts';
import type { AppEnv } from '../http/context.ts';
import { LIMIT_VARS, limitsBound, tenantLimits } from '../limits/limit-config.ts';
import { tenantStub } from '../limits/tenant-stub.ts';
import { cacheHitRate } from '../limits/token-tally.ts';

export function usageRoutes(app: Hono<AppEnv>): void {
  app.get('/v1/usage', async (c) => {
    if (!limitsBound(c.env))
      throw new CtxError('not_found', 'this deployment keeps no tenant limits (no TENANTS binding)', {
        path: 'url',
      });
    const limits = tenantLimits(c.env);
    const usage = await tenantStub(c.env, c.get('tenant')).usage(c.get('tenant'), limits.recountMs);
    return c.json({
      inFlight: {
        calls: usage.inFlight,
        sessions: usage.sessions,
        perTenant: { max: limits.inFlightPerTenant, name: LIMIT_VARS.inFlightPerTenant },
        perSession: { max: limits.inFlightPerSession, name: LIMIT_VARS.inFlightPerSession },
      },
      stored: {
        bytes: usage.stored.bytes,
        countedAt: usage.stored.countedAt,
        max: usage.caps.storedBytes ?? limits.storedBytes,
        name: LIMIT_VARS.storedBytes,
      },
      sessions: {
        count: usage.sessionCount,
        max: usage.caps.sessions ?? limits.sessions,
        name: LIMIT_VARS.sessions,
      },
      tokens: { ...usage.tokens, cacheHitRate: cacheHitRate(usage.tokens) },
    });
  });
}
