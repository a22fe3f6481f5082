/**
 * The drop-in proxy: `POST /v1/proxy/openai/chat/completions`, `POST /v1/proxy/openai/responses` and
 * `POST /v1/proxy/anthropic/v1/messages` speak the providers' own protocols (an SDK changes only its
 * base URL), and `GET /v1/proxy/sessions/:session/calls/:call` reads what one call did (the link in
 * its `x-ctxkit-journal` header). Any other `/v1/proxy/…` path is 404: the upstreams are the
 * configured ones only.
 */
import type { Hono } from 'hono';
import { CtxError } from '../../core/index.ts';
import { overLimit, rateLimited } from '../auth/rate-limits.ts';
import { type AppContext, type AppEnv, idParam } from '../http/context.ts';
import { withCallLease } from '../limits/call-lease.ts';
import { anthropicMessages } from '../proxy/anthropic-messages.ts';
import { openAIChat } from '../proxy/openai-chat.ts';
import { openAIResponses } from '../proxy/openai-responses.ts';
import type { Protocol } from '../proxy/protocol.ts';
import { proxyCall } from '../proxy/proxy-call.ts';
import { sessionStub } from '../session/stub.ts';
import { unwrap } from '../session/wire.ts';

const CALL_RE = /^[0-9a-f-]{36}$/;

function handle(protocol: Protocol) {
  return (c: AppContext) =>
    withCallLease(
      {
        env: c.env,
        tenant: c.get('tenant'),
        request: c.req.raw,
        waitUntil: (p) => c.executionCtx.waitUntil(p),
        extraRound: async () => {
          const over = await overLimit(c.env, c.get('keyId'), c.get('tenant'));
          return over ? rateLimited(c, over) : undefined;
        },
      },
      (ctx) => proxyCall(ctx, protocol),
    );
}

export function proxyRoutes(app: Hono<AppEnv>): void {
  app.post('/v1/proxy/openai/chat/completions', handle(openAIChat));
  app.post('/v1/proxy/openai/responses', handle(openAIResponses));
  app.post('/v1/proxy/anthropic/v1/messages', handle(anthropicMessages));

  app.get('/v1/proxy/sessions/:session/calls/:call', async (c) => {
    const key = { tenant: c.get('tenant'), session: idParam(c, 'session') };
    const call = c.req.param('call');
    if (!CALL_RE.test(call))
      throw new CtxError('invalid_input', 'must be a call id from an x-ctxkit-call header', {
        path: 'params.call',
      });
    return c.json({ call: unwrap(await sessionStub(c.env, key).proxyCall(key, call)) });
  });

  app.all('/v1/proxy/*', (c) => {
    throw new CtxError(
      'not_found',
      `no proxy route ${c.req.method} ${new URL(c.req.url).pathname} (the proxy serves POST /v1/proxy/openai/chat/completions, /v1/proxy/openai/responses and /v1/proxy/anthropic/v1/messages)`,
      { path: 'url' },
    );
  });
}
