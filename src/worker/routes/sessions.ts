/**
 * Session routes. Every write goes to the session's Durable Object; the tenant is part of the
 * object's name, so one tenant can never reach another's session (it reads as 404).
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { CtxError, jsonValueSchema } from '../../core/index.ts';
import {
  type AppContext,
  type AppEnv,
  ID_PATTERN,
  idParam,
  jsonBody,
  optionalJsonBody,
  queryParams,
} from '../http/context.ts';
import { LOG_PAGE_BYTES } from '../service-bounds.ts';
import { appendBodySchema, INPUT_FORMATS } from '../session/formats.ts';
import { idempotencyOf, type MaybeReplayed, sessionIdFor } from '../session/idempotency.ts';
import { settingsSchema } from '../session/settings.ts';
import { type SessionApi, sessionStub } from '../session/stub.ts';
import { type SessionKey, unwrap } from '../session/wire.ts';
import { createD1SessionStore } from '../store/d1-stores.ts';
import { armedFault } from '../test-faults.ts';

const createSchema = settingsSchema.extend({
  id: z
    .string()
    .regex(ID_PATTERN, 'must be 1–128 characters of [A-Za-z0-9._-], starting alphanumeric')
    .optional(),
  title: z.string().max(500).optional(),
  project: z.string().max(200).optional(),
});

/** Rows of the log per page at most, and by default (in bytes: `LOG_PAGE_BYTES`). */
export const MAX_LOG_PAGE = 5000;
export const DEFAULT_LOG_PAGE = 1000;

const contextSchema = z.strictObject({
  /** @default 'neutral' */
  dialect: z.enum(INPUT_FORMATS).optional(),
  system: z.string().max(200_000).optional(),
  tools: z.array(jsonValueSchema).max(500).optional(),
});

const compactSchema = contextSchema.extend({ instructions: z.string().max(10_000).optional() });
const overflowSchema = contextSchema.extend({
  /** The provider's error text, e.g. `prompt is too long: 210000 tokens > 200000 maximum`. */
  error: z.string().min(1).max(10_000),
});
const clearSchema = z.strictObject({ purge: z.boolean().optional() });

/** A page of sessions ends at `<lastActive>.<id>` of its last one. */
const SESSION_CURSOR = /^(\d{1,16})\.([A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;

const listQuery = z.strictObject({
  project: z.string().max(200).optional(),
  /** @default 50 */
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().regex(SESSION_CURSOR, 'must be the `next` of a previous page').optional(),
});
const seqParam = z.coerce
  .number()
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER - 1);
const messagesQuery = z.strictObject({
  after: seqParam.optional(),
  /** The `next` of the previous page (a seq): the same as `after`. */
  cursor: seqParam.optional(),
  /** @default 1000 */
  limit: z.coerce.number().int().min(1).max(MAX_LOG_PAGE).optional(),
  compacted: z.enum(['true', 'false']).optional(),
});

/** Every body and query schema of these routes (walked by the bounds audit). */
export const sessionRouteSchemas = {
  create: createSchema,
  context: contextSchema,
  compact: compactSchema,
  overflow: overflowSchema,
  clear: clearSchema,
  list: listQuery,
  messages: messagesQuery,
};

/** The answer of a write that may be a replay: `Idempotent-Replayed: true` when it is. */
function replied<T>(c: AppContext, result: MaybeReplayed<T>, status: 200 | 201): Response {
  if (result.replayed) c.header('idempotent-replayed', 'true');
  return c.json(result.value as object, status);
}

function sessionKey(c: AppContext): SessionKey {
  return { tenant: c.get('tenant'), session: idParam(c, 'session') };
}

function sessionObject(c: AppContext, key: SessionKey): SessionApi {
  return sessionStub(c.env, key);
}

export function sessionRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/sessions', async (c) => {
    const body = await optionalJsonBody(c, createSchema);
    const { id, title, project, ...settings } = body;
    const idem = await idempotencyOf(c.req.header('idempotency-key'), 'create', body);
    // Without an id, a keyed create gets one derived from the key, so that its retry reaches the same object.
    const session = id ?? (idem ? await sessionIdFor(c.get('tenant'), idem.key) : crypto.randomUUID());
    const key = { tenant: c.get('tenant'), session };
    const result = unwrap(
      await sessionObject(c, key).create(
        key,
        {
          settings,
          ...(title !== undefined ? { title } : {}),
          ...(project !== undefined ? { project } : {}),
        },
        idem,
      ),
    );
    return replied(c, { value: { session: result.value, settings }, replayed: result.replayed }, 201);
  });

  app.get('/v1/sessions', async (c) => {
    const q = queryParams(c, listQuery);
    const at = q.cursor === undefined ? undefined : SESSION_CURSOR.exec(q.cursor)!;
    const page = await createD1SessionStore(c.env.DB).listPage(c.get('tenant'), {
      project: q.project,
      limit: q.limit ?? 50,
      after: at && { lastActive: Number(at[1]), id: at[2]! },
    });
    return c.json({ sessions: page.sessions, next: page.next && `${page.next.lastActive}.${page.next.id}` });
  });

  app.get('/v1/sessions/:session', async (c) => {
    const key = sessionKey(c);
    const info = await createD1SessionStore(c.env.DB).get(key.tenant, key.session);
    if (!info) return notFound(key);
    return c.json({ session: info });
  });

  app.delete('/v1/sessions/:session', async (c) => {
    const key = sessionKey(c);
    unwrap(await sessionObject(c, key).remove(key));
    return c.body(null, 204);
  });

  app.post('/v1/sessions/:session/messages', async (c) => {
    const key = sessionKey(c);
    const body = await jsonBody(c, appendBodySchema);
    const idem = await idempotencyOf(c.req.header('idempotency-key'), `append ${key.session}`, body);
    const fault = armedFault(c.req.raw.headers);
    return replied(c, unwrap(await sessionObject(c, key).append(key, body, idem, fault)), 201);
  });

  app.get('/v1/sessions/:session/messages', async (c) => {
    const key = sessionKey(c);
    const q = queryParams(c, messagesQuery);
    if (q.after !== undefined && q.cursor !== undefined)
      throw new CtxError('invalid_input', 'give after or cursor, not both', { path: 'query.cursor' });
    const store = createD1SessionStore(c.env.DB, { blobs: c.env.BLOBS });
    if (!(await store.get(key.tenant, key.session))) return notFound(key);
    const page = await store.page(key.tenant, key.session, {
      afterSeq: q.cursor ?? q.after ?? 0,
      limit: q.limit ?? DEFAULT_LOG_PAGE,
      maxBytes: LOG_PAGE_BYTES,
      includeCompacted: q.compacted !== 'false',
    });
    return c.json({ messages: page.rows, next: page.next === null ? null : String(page.next) });
  });

  app.post('/v1/sessions/:session/prepare', async (c) => {
    const key = sessionKey(c);
    const body = await optionalJsonBody(c, contextSchema);
    return c.json(unwrap(await sessionObject(c, key).prepare(key, body)));
  });

  app.post('/v1/sessions/:session/compact', async (c) => {
    const key = sessionKey(c);
    const body = await optionalJsonBody(c, compactSchema);
    const idem = await idempotencyOf(c.req.header('idempotency-key'), `compact ${key.session}`, body);
    return replied(c, unwrap(await sessionObject(c, key).compact(key, body, idem)), 200);
  });

  app.post('/v1/sessions/:session/overflow', async (c) => {
    const key = sessionKey(c);
    const body = await jsonBody(c, overflowSchema);
    return c.json(unwrap(await sessionObject(c, key).recover(key, body)));
  });

  app.post('/v1/sessions/:session/clear', async (c) => {
    const key = sessionKey(c);
    const body = await optionalJsonBody(c, clearSchema);
    return c.json(unwrap(await sessionObject(c, key).clear(key, body)));
  });

  app.get('/v1/sessions/:session/stats', async (c) => {
    const key = sessionKey(c);
    return c.json(unwrap(await sessionObject(c, key).stats(key)));
  });

  // The context view's data: the window by category against the levels, and the proxy calls.
  app.get('/v1/sessions/:session/view', async (c) => {
    const key = sessionKey(c);
    return c.json(unwrap(await sessionObject(c, key).view(key)));
  });
}

function notFound(key: SessionKey): never {
  throw new CtxError('not_found', `session ${key.session} not found`, { path: 'params.session' });
}
