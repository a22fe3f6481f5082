/**
 * The recall tools of a session over HTTP, what the proxy's tool loop answers the model with:
 * `POST /v1/sessions/:session/recall` searches what left the session's context (and the memories it
 * may see), newest first within the token budget; `POST …/reread` returns one archived item whole by
 * the ref its stub or summary names (page on with `offset`); `POST …/remember` keeps a fact for the
 * session. A ref resolves only in the session that archived it (the session object holds its archive),
 * so another session's or tenant's ref is a 404 like an unknown one. Scopes: `read` for recall and
 * reread, `write` for remember.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { isRef, RECALL_LIMITS } from '../../core/index.ts';
import { type AppEnv, idParam, jsonBody } from '../http/context.ts';
import { sessionStub } from '../session/stub.ts';
import { unwrap } from '../session/wire.ts';

const recallSchema = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(RECALL_LIMITS.queryChars),
  /** @default 8 */
  limit: z.number().int().min(1).max(RECALL_LIMITS.maxHits).optional(),
});
const rereadSchema = z.strictObject({
  ref: z.string().max(100).refine(isRef, 'must be a ref ctxkit wrote: m or s and 12 hex digits'),
  /** Character to continue from. @default 0 */
  offset: z.number().int().min(0).max(1e12).optional(),
});
const rememberSchema = z.strictObject({
  text: z.string().trim().min(1, 'must not be empty').max(RECALL_LIMITS.rememberChars),
});

/** Every body schema of these routes (walked by the bounds audit). */
export const recallRouteSchemas = { recall: recallSchema, reread: rereadSchema, remember: rememberSchema };

export function recallRoutes(app: Hono<AppEnv>): void {
  const keyOf = (c: Parameters<typeof idParam>[0]) => ({
    tenant: c.get('tenant'),
    session: idParam(c, 'session'),
  });

  app.post('/v1/sessions/:session/recall', async (c) => {
    const key = keyOf(c);
    const body = await jsonBody(c, recallSchema);
    return c.json(unwrap(await sessionStub(c.env, key).recallSearch(key, body)));
  });

  app.post('/v1/sessions/:session/reread', async (c) => {
    const key = keyOf(c);
    const body = await jsonBody(c, rereadSchema);
    return c.json(unwrap(await sessionStub(c.env, key).recallReread(key, body)));
  });

  app.post('/v1/sessions/:session/remember', async (c) => {
    const key = keyOf(c);
    const body = await jsonBody(c, rememberSchema);
    return c.json(unwrap(await sessionStub(c.env, key).recallRemember(key, body)), 201);
  });
}
