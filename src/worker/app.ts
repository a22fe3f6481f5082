/**
 * The Hono app: health, then every `/v1/*` route behind the bearer-key middleware. Errors of every
 * kind end in `errorResponse` (src/worker/errors.ts), the one place that maps them to HTTP.
 */
import { Hono } from 'hono';
import { CtxError } from '../core/index.ts';
import { requireApiKey } from './auth/middleware.ts';
import { errorResponse } from './errors.ts';
import type { AppEnv } from './http/context.ts';
import { blobRoutes } from './routes/blobs.ts';
import { memoryRoutes } from './routes/memories.ts';
import { sessionRoutes } from './routes/sessions.ts';

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', (c) => c.json({ ok: true, service: 'ctxkit' }));
  app.use('/v1/*', requireApiKey());
  sessionRoutes(app);
  memoryRoutes(app);
  blobRoutes(app);
  app.notFound(() => errorResponse(new CtxError('not_found', 'no such route', { path: 'url' })));
  app.onError((error) => errorResponse(error));
  return app;
}
