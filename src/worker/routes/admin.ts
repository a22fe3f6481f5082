/**
 * Operator routes, behind `ADMIN_TOKEN` (src/worker/auth/admin-token.ts): bootstrap the first key of
 * a tenant, which can then manage its own keys through `/v1/keys`.
 */
import type { Hono } from 'hono';
import { CtxError } from '../../core/index.ts';
import { issueApiKey } from '../auth/key-store.ts';
import { type AppContext, type AppEnv, optionalJsonBody } from '../http/context.ts';
import { createKeySchema } from './keys.ts';

/** Tenant names: lowercase letters, digits, `_` and `-`, 1–63 characters, starting alphanumeric. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

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

export function adminRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/admin/tenants/:tenant/keys', async (c) => {
    const tenant = tenantParam(c);
    const body = await optionalJsonBody(c, createKeySchema);
    const issued = await issueApiKey(c.env.DB, tenant, body.label, Date.now());
    return c.json({ tenant, ...issued }, 201);
  });
}
