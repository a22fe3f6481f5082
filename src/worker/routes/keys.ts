/**
 * API keys, self-service (docs/service.md, "API keys"): a key with the `admin` scope issues keys with
 * at most its own scopes and expiry, lists its line (itself and the keys minted through it) and revokes
 * in it; any key may revoke itself (`?self=true`). Another tenant's key reads as 404, a key of the
 * tenant outside the caller's line as 403. `GET /v1/audit` is the tenant's audit log, for its admin keys.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';
import { KEY_ID_PATTERN } from '../auth/api-keys.ts';
import { MAX_AUDIT_ENTRIES, readAudit } from '../auth/audit-log.ts';
import { issueApiKey, type KeyActor, listApiKeys, revokeApiKey } from '../auth/key-store.ts';
import { clientAddress } from '../auth/middleware.ts';
import { requireScope, scopesSchema } from '../auth/scopes.ts';
import { type AppContext, type AppEnv, optionalJsonBody, queryParams } from '../http/context.ts';

const DAY = 86_400_000;

/** `POST /v1/keys` and `POST /v1/admin/tenants/:tenant/keys`. */
export const createKeySchema = z.strictObject({
  /** Free text to tell keys apart. @default none (listed as `null`) */
  label: z.string().min(1).max(100).optional(),
  /** What the key may do. @default the scopes of the key that mints it (every scope for the operator) */
  scopes: scopesSchema.optional(),
  /** Days until it stops working. @default the expiry of the key that mints it (none for the operator) */
  expiresDays: z.number().positive().max(3650).optional(),
});

const revokeQuery = z.strictObject({
  /** Allow revoking the key that authenticates this request. @default 'false' */
  self: z.enum(['true', 'false']).optional(),
});

export const auditQuery = z.strictObject({
  /** Entries after this `seq`. @default 0 */
  after: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER - 1)
    .optional(),
  /** @default 1000 */
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_ENTRIES).optional(),
});

/** Every body and query schema of these routes (walked by the bounds audit). */
export const keyRouteSchemas = { create: createKeySchema, revoke: revokeQuery, audit: auditQuery };

export function keyIdParam(c: AppContext): string {
  const id = c.req.param('id') ?? '';
  if (!KEY_ID_PATTERN.test(id))
    throw new CtxError('invalid_input', 'must be a key id: 12 characters of [a-z0-9]', { path: 'params.id' });
  return id;
}

/** The grant of a create body: its label, scopes and expiry as a time. */
export function grantOf(body: z.infer<typeof createKeySchema>, now: number) {
  return {
    label: body.label,
    scopes: body.scopes,
    ...(body.expiresDays !== undefined ? { expiresAt: now + Math.round(body.expiresDays * DAY) } : {}),
  };
}

function keyActor(c: AppContext): KeyActor {
  const address = clientAddress(c);
  return {
    kind: 'key',
    keyId: c.get('keyId'),
    scopes: c.get('scopes'),
    expiresAt: c.get('keyExpiresAt'),
    ...(address ? { address } : {}),
  };
}

export function keyRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/keys', async (c) => {
    const body = await optionalJsonBody(c, createKeySchema);
    const now = Date.now();
    return c.json(await issueApiKey(c.env.DB, c.get('tenant'), keyActor(c), grantOf(body, now), now), 201);
  });

  app.get('/v1/keys', async (c) => {
    const keys = await listApiKeys(c.env.DB, c.get('tenant'), keyActor(c));
    return c.json({ keys: keys.map((k) => ({ ...k, current: k.id === c.get('keyId') })) });
  });

  app.delete('/v1/keys/:id', async (c) => {
    const id = keyIdParam(c);
    const q = queryParams(c, revokeQuery);
    const self = id === c.get('keyId');
    if (self && q.self !== 'true')
      throw new CtxError(
        'conflict',
        'this is the key authenticating the request; add ?self=true to revoke it anyway',
        { path: 'params.id' },
      );
    // Any key may revoke itself; revoking another needs the admin scope (and the key in its line).
    if (!self) requireScope(c.get('scopes'), 'admin');
    const outcome = await revokeApiKey(c.env.DB, c.get('tenant'), id, keyActor(c), Date.now());
    if (outcome === 'missing') throw new CtxError('not_found', `key ${id} not found`, { path: 'params.id' });
    return c.body(null, 204);
  });

  app.get('/v1/audit', async (c) => {
    const q = queryParams(c, auditQuery);
    return c.json({ entries: await readAudit(c.env.DB, c.get('tenant'), q.after ?? 0, q.limit) });
  });
}
