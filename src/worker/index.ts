/**
 * The ctxkit edge service: the Hono app (`fetch`), the daily-summary and clean-up cron
 * (`scheduled`), the per-session Durable Object class bound as `SESSIONS` and the per-tenant one
 * bound as `TENANTS` (the limits' counters).
 */
import { createApp } from './app.ts';
import type { Env } from './env.ts';
import { runScheduled } from './scheduled.ts';
import { withStoreLimits } from './store/d1-value-limit.ts';

export { TenantObject } from './limits/tenant-object.ts';
export { SessionObject } from './session/session-object.ts';

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, withStoreLimits(env), ctx),
  async scheduled(controller, env) {
    await runScheduled(controller.cron, controller.scheduledTime, withStoreLimits(env));
  },
} satisfies ExportedHandler<Env>;
