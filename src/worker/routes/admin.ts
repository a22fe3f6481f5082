/**
 * Operator routes, behind `ADMIN_TOKEN` (src/worker/auth/admin-token.ts), each recorded in the
 * tenant's audit log: a tenant's keys (its first key, which then manages its own line through
 * `/v1/keys`; the list; revoking any), its audit log, its stored-bytes cap and a recount, and running
 * the crons by hand — the only way to run them outside Cloudflare's schedule (`npm start` serves no
 * trigger URL).
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';
import { appendAudit, readAudit } from '../auth/audit-log.ts';
import { issueApiKey, type KeyActor, listApiKeys, revokeApiKey } from '../auth/key-store.ts';
import { clientAddress } from '../auth/middleware.ts';
import { type AppContext, type AppEnv, jsonBody, optionalJsonBody, queryParams } from '../http/context.ts';
import { LIMIT_VARS, limitsBound, tenantLimits } from '../limits/limit-config.ts';
import { tenantStub } from '../limits/tenant-stub.ts';
import { CLEANUP_CRON, DAILY_CRON, runScheduled } from '../scheduled.ts';
import { auditQuery, createKeySchema, grantOf, keyIdParam } from './keys.ts';

/** Tenant names: lowercase letters, digits, `_` and `-`, 1–63 characters, starting alphanumeric. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const limitsSchema = z
  .strictObject({
    /** This tenant's stored-bytes cap; `null` goes back to `MAX_STORED_BYTES_PER_TENANT`. */
    storedBytes: z
      .number()
      .int()
      .min(1024)
      .max(2 ** 50)
      .nullable()
      .optional(),
    /** This tenant's sessions cap; `null` goes back to `MAX_SESSIONS_PER_TENANT`. */
    sessions: z.number().int().min(1).max(100_000_000).nullable().optional(),
  })
  .refine((b) => b.storedBytes !== undefined || b.sessions !== undefined, {
    message: 'give storedBytes, sessions or both',
    path: ['storedBytes'],
  });

const cronSchema = z.strictObject({
  cron: z.enum([DAILY_CRON, CLEANUP_CRON]),
  /** The time the run acts as of (ms since epoch). @default now */
  time: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
});

/** Every body and query schema of these routes (walked by the bounds audit). */
export const adminRouteSchemas = { limits: limitsSchema, cron: cronSchema };

function tenantParam(c: AppContext): string {
  const tenant = c.req.param('tenant') ?? '';
  if (!TENANT_PATTERN.test(tenant))
    throw new CtxError(
      'invalid_input',
      'must be 1–63 characters of [a-z0-9_-], starting with a letter or digit',
      { path: 'params.tenant' },
    );
  return tenant;
}

function operator(c: AppContext): KeyActor {
  const address = clientAddress(c);
  return { kind: 'operator', ...(address ? { address } : {}) };
}

function tenantObject(c: AppContext, tenant: string) {
  if (!limitsBound(c.env))
    throw new CtxError('not_found', 'this deployment keeps no tenant limits (no TENANTS binding)', {
      path: 'url',
    });
  return tenantStub(c.env, tenant);
}

export function adminRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/admin/tenants/:tenant/keys', async (c) => {
    const tenant = tenantParam(c);
    const body = await optionalJsonBody(c, createKeySchema);
    const now = Date.now();
    const issued = await issueApiKey(c.env.DB, tenant, operator(c), grantOf(body, now), now);
    return c.json({ tenant, ...issued }, 201);
  });

  app.get('/v1/admin/tenants/:tenant/keys', async (c) => {
    const tenant = tenantParam(c);
    return c.json({ tenant, keys: await listApiKeys(c.env.DB, tenant, operator(c)) });
  });

  app.delete('/v1/admin/tenants/:tenant/keys/:id', async (c) => {
    const tenant = tenantParam(c);
    const id = keyIdParam(c);
    const outcome = await revokeApiKey(c.env.DB, tenant, id, operator(c), Date.now());
    if (outcome === 'missing') throw new CtxError('not_found', `key ${id} not found`, { path: 'params.id' });
    return c.body(null, 204);
  });

  app.get('/v1/admin/tenants/:tenant/audit', async (c) => {
    const tenant = tenantParam(c);
    const q = queryParams(c, auditQuery);
    return c.json({ tenant, entries: await readAudit(c.env.DB, tenant, q.after ?? 0, q.limit) });
  });

  app.put('/v1/admin/tenants/:tenant/limits', async (c) => {
    const tenant = tenantParam(c);
    const body = await jsonBody(c, limitsSchema);
    const caps = await tenantObject(c, tenant).setCaps(body);
    await appendAudit(c.env.DB, {
      tenant,
      at: Date.now(),
      actor: 'operator',
      action: 'tenant.limits',
      detail: body,
      address: clientAddress(c),
    });
    const { storedBytes, sessions } = tenantLimits(c.env);
    return c.json({ tenant, caps, defaults: { storedBytes, sessions } });
  });

  // Counts the tenant's stored bytes from D1 and R2 now (after a manual clean-up, or to check a cap).
  app.post('/v1/admin/tenants/:tenant/recount', async (c) => {
    const tenant = tenantParam(c);
    const limits = tenantLimits(c.env);
    const stub = tenantObject(c, tenant);
    const stored = await stub.recountNow(tenant);
    const usage = await stub.usage(tenant, limits.recountMs);
    const max = usage.caps.storedBytes ?? limits.storedBytes;
    return c.json({ tenant, stored: { ...stored, max, name: LIMIT_VARS.storedBytes } });
  });

  app.post('/v1/admin/cron', async (c) => {
    const body = await jsonBody(c, cronSchema);
    const report = await runScheduled(body.cron, body.time ?? Date.now(), c.env);
    return c.json({ cron: body.cron, report });
  });
}
