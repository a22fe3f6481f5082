/**
 * The Hono app: health, the operator routes `/v1/admin/*` behind `ADMIN_TOKEN` (absent without it),
 * then every other `/v1/*` route behind the bearer-key middleware. Errors of every
 * kind end in `errorResponse` (src/worker/errors.ts), the one place that maps them to HTTP.
 */
import { Hono } from 'hono';
import { except } from 'hono/combine';
import { CtxError } from '../core/index.ts';
import { requireAdminToken } from './auth/admin-token.ts';
import { requireApiKey } from './auth/middleware.ts';
import { errorResponse } from './errors.ts';
import type { AppEnv } from './http/context.ts';
import { adminRoutes } from './routes/admin.ts';
import { blobRoutes } from './routes/blobs.ts';
import { keyRoutes } from './routes/keys.ts';
import { memoryRoutes } from './routes/memories.ts';
import { proxyRoutes } from './routes/proxy.ts';
import { sessionRoutes } from './routes/sessions.ts';

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', (c) => c.json({ ok: true, service: 'ctxkit' }));
  app.use('/v1/admin/*', requireAdminToken());
  app.use('/v1/*', except('/v1/admin/*', requireApiKey()));
  sessionRoutes(app);
  memoryRoutes(app);
  blobRoutes(app);
  keyRoutes(app);
  adminRoutes(app);
  proxyRoutes(app);
  app.notFound(() => errorResponse(new CtxError('not_found', 'no such route', { path: 'url' })));
  app.onError((error) => errorResponse(error));
  return app;
}
