/**
 * The Hono app: health, the operator routes `/v1/admin/*` behind `ADMIN_TOKEN` (absent without it),
 * then every other `/v1/*` route behind the bearer-key middleware; `/ui` is the context view's page
 * (public and data-free: it signs in and reads `/v1/*` with the key). Errors of every
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
import { recallRoutes } from './routes/session-recall.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { uiRoutes } from './routes/ui.ts';
import { usageRoutes } from './routes/usage.ts';

/** The methods of the routes (not middleware) whose pattern matches a path, computed from the app. */
function allowedMethods(app: Hono<AppEnv>): (path: string) => string[] {
  const routes = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({
      method: r.method,
      re: new RegExp(
        `^${r.path
          .split('/')
          .map((seg) =>
            seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          )
          .join('/')}$`,
      ),
    }));
  return (path) => [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))].sort();
}

export function createApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', (c) => c.json({ ok: true, service: 'ctxkit' }));
  app.use('/v1/admin/*', requireAdminToken());
  app.use('/v1/*', except('/v1/admin/*', requireApiKey()));
  sessionRoutes(app);
  recallRoutes(app);
  memoryRoutes(app);
  blobRoutes(app);
  keyRoutes(app);
  adminRoutes(app);
  proxyRoutes(app);
  usageRoutes(app);
  uiRoutes(app);
  const allowed = allowedMethods(app);
  app.notFound((c) => {
    // A known path with another method is a 405 that says which methods it has.
    const methods = allowed(new URL(c.req.url).pathname);
    if (methods.length === 0)
      return errorResponse(new CtxError('not_found', 'no such route', { path: 'url' }));
    const message = `${c.req.method} is not allowed here; use ${methods.join(', ')}`;
    return c.json({ error: { code: 'method_not_allowed', message, path: 'method' } }, 405, {
      allow: methods.join(', '),
    });
  });
  app.onError((error, c) => errorResponse(error, c.req.path));
  return app;
}
