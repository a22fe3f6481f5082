/**
 * API keys, self-service: any key of a tenant can create, list and revoke the tenant's keys. Another
 * tenant's key reads as 404; revoking the key of the request itself needs `?self=true`.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';
import { KEY_ID_PATTERN } from '../auth/api-keys.ts';
import { issueApiKey, listApiKeys, revokeApiKey } from '../auth/key-store.ts';
import { type AppContext, type AppEnv, optionalJsonBody, queryParams } from '../http/context.ts';

/** `POST /v1/keys` and `POST /v1/admin/tenants/:tenant/keys`. */
export const createKeySchema = z.strictObject({
  /** Free text to tell keys apart. @default none (listed as `null`) */
  label: z.string().min(1).max(100).optional(),
});

const revokeQuery = z.strictObject({
  /** Allow revoking the key that authenticates this request. @default 'false' */
  self: z.enum(['true', 'false']).optional(),
});

/** Every body and query schema of these routes (walked by the bounds audit). */
export const keyRouteSchemas = { create: createKeySchema, revoke: revokeQuery };

function keyIdParam(c: AppContext): string {
  const id = c.req.param('id') ?? '';
  if (!KEY_ID_PATTERN.test(id))
    throw new CtxError('invalid_input', 'must be a key id: 12 characters of [a-z0-9]', { path: 'params.id' });
  return id;
}

export function keyRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/keys', async (c) => {
    const body = await optionalJsonBody(c, createKeySchema);
    return c.json(await issueApiKey(c.env.DB, c.get('tenant'), body.label, Date.now()), 201);
  });

  app.get('/v1/keys', async (c) => {
    const keys = await listApiKeys(c.env.DB, c.get('tenant'));
    return c.json({ keys: keys.map((k) => ({ ...k, current: k.id === c.get('keyId') })) });
  });

  app.delete('/v1/keys/:id', async (c) => {
    const id = keyIdParam(c);
    const q = queryParams(c, revokeQuery);
    if (id === c.get('keyId') && q.self !== 'true')
      throw new CtxError(
        'conflict',
        'this is the key authenticating the request; add ?self=true to revoke it anyway',
        { path: 'params.id' },
      );
    const outcome = await revokeApiKey(c.env.DB, c.get('tenant'), id, Date.now());
    if (outcome === 'missing') throw new CtxError('not_found', `key ${id} not found`, { path: 'params.id' });
    return c.body(null, 204);
  });
}
