/**
 * The context view in the service. `GET /ui` is the page: static, public, no data in it — a sign-in
 * form, the nav and the script. Everything it shows comes from `/v1/*` with the API key in a header, so
 * a tenant sees only its own data: the HTML fragments below (rendered by `src/view`, as
 * `ctxcheck inspect --html` is), the JSON memory API and the blob/message routes. See
 * docs/decisions/0010-context-view.md.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';
import { renderPage } from '../../view/html.ts';
import { renderCallPage } from '../../view/render-call.ts';
import { renderSessionList, renderSessionPage, type SessionListRow } from '../../view/render-session.ts';
import { type AppContext, type AppEnv, idParam, queryParams } from '../http/context.ts';
import { MAX_SUMMARIES } from '../proxy/call-log.ts';
import { sessionStub } from '../session/stub.ts';
import { unwrap } from '../session/wire.ts';
import { createD1SessionStore } from '../store/d1-stores.ts';
import { UI_SCRIPT } from '../ui/page-script.ts';

/** Sessions whose level the list reads (one `stats` each); the rest of a search shows without it. */
const LEVELS_SHOWN = 50;
const CALL_RE = /^[0-9a-f-]{36}$/;

const listQuery = z.strictObject({ q: z.string().max(200).optional() });
/** A page of a session's timeline: the offset among its newest calls (bounded by what is kept). */
const sessionQuery = z.strictObject({ offset: z.coerce.number().int().min(0).max(MAX_SUMMARIES).optional() });

/** Every query schema of these routes (walked by the bounds audit). */
export const uiRouteSchemas = { list: listQuery, session: sessionQuery };

/** No framing, no other origin, no referrer: the page talks to this Worker only. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** `'sha256-…'` of each inline block `tag` of `html` (its text exactly as the browser hashes it). */
async function inlineHashes(html: string, tag: 'script' | 'style'): Promise<string[]> {
  const out: string[] = [];
  for (const m of html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(m[1]!));
    out.push(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  }
  return out;
}

/**
 * The page's CSP: only its own inline script and style block run, by their SHA-256 (no
 * `'unsafe-inline'` anywhere: markup that slipped into a fragment can neither run nor restyle the page).
 * The views carry no `style` attribute (their bars are SVG, their colours classes), so none is allowed.
 */
async function contentSecurityPolicy(html: string): Promise<string> {
  const scripts = (await inlineHashes(html, 'script')).join(' ');
  const styles = (await inlineHashes(html, 'style')).join(' ');
  return `default-src 'none'; script-src ${scripts}; style-src ${styles}; style-src-elem ${styles}; style-src-attr 'none'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

const SHELL_HEADER = `<nav id="nav" class="tabs" aria-label="Views" hidden><a href="#/sessions">Sessions</a> · <a href="#/memories">Memories</a> · <button type="button" id="signout">Sign out</button></nav>`;

const MEMORIES = `<section aria-labelledby="memories-h"><h2 id="memories-h" tabindex="-1">Memories</h2>
<form class="filters" data-route="memories" role="search" aria-label="Search memories"><label>Search (the API's hybrid search)<input type="search" name="q" autocomplete="off"></label><button type="submit">Search</button></form>
<p class="summary" aria-live="polite"></p>
<div class="scroll"><table class="stack" aria-label="Memories"><thead><tr><th scope="col" class="id wide">id</th><th scope="col">type</th><th scope="col">title</th><th scope="col" class="preview">content</th><th scope="col">pinned</th><th scope="col">expires</th><th scope="col"><span class="skip">actions</span></th></tr></thead><tbody></tbody></table></div></section>`;

const SHELL_BODY = `<form id="signin" aria-labelledby="signin-h"><h2 id="signin-h">Sign in</h2>
<p class="summary">The key stays in this tab (session storage) and is sent in the <code>authorization</code> header only.</p>
<div class="filters"><label>API key<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required></label><button type="submit">Sign in</button></div></form>
<p id="note" class="note" role="status" hidden></p>
<div id="view"></div>
<template id="memories-template">${MEMORIES}</template>`;

const SHELL = renderPage({ title: 'ctxkit', header: SHELL_HEADER, body: SHELL_BODY, script: UI_SCRIPT });
/** Computed once per isolate (the page never changes while it runs). */
let shellCsp: Promise<string> | undefined;

function html(c: AppContext, body: string): Response {
  return c.body(body, 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
}

export function uiRoutes(app: Hono<AppEnv>): void {
  app.get('/ui', async () => {
    shellCsp ??= contentSecurityPolicy(SHELL);
    return new Response(SHELL, { headers: { ...PAGE_HEADERS, 'content-security-policy': await shellCsp } });
  });

  app.get('/v1/ui/sessions', async (c) => {
    const query = (queryParams(c, listQuery).q ?? '').trim();
    const tenant = c.get('tenant');
    const all = await createD1SessionStore(c.env.DB).list(tenant, { limit: 500 });
    const needle = query.toLowerCase();
    const found = query
      ? all.filter(
          (s) => s.id.toLowerCase().includes(needle) || (s.title ?? '').toLowerCase().includes(needle),
        )
      : all;
    const rows = await Promise.all(
      found.slice(0, LEVELS_SHOWN).map(async (s): Promise<SessionListRow> => {
        const row: SessionListRow = {
          id: s.id,
          title: s.title,
          project: s.project,
          messages: s.lastSeq,
          lastActive: s.lastActive,
        };
        // One session that cannot be read (its object failing, its data broken) never fails the list:
        // its row is shown without its level.
        const stats = await sessionStub(c.env, { tenant, session: s.id })
          .stats({ tenant, session: s.id })
          .catch((error: unknown) => {
            console.error(`ctxkit ui: the stats of session ${s.id} failed:`, error);
            return undefined;
          });
        if (stats?.ok)
          Object.assign(row, {
            tokens: stats.value.context.tokens,
            usable: stats.value.context.usable,
            level: stats.value.context.level,
          });
        return row;
      }),
    );
    return html(c, renderSessionList(rows, query, all.length));
  });

  app.get('/v1/ui/sessions/:session', async (c) => {
    const key = { tenant: c.get('tenant'), session: idParam(c, 'session') };
    const { offset } = queryParams(c, sessionQuery);
    const data = unwrap(await sessionStub(c.env, key).view(key, offset !== undefined ? { offset } : {}));
    return html(c, renderSessionPage(data));
  });

  app.get('/v1/ui/sessions/:session/calls/:call', async (c) => {
    const key = { tenant: c.get('tenant'), session: idParam(c, 'session') };
    const id = c.req.param('call');
    if (!CALL_RE.test(id))
      throw new CtxError('invalid_input', 'must be a call id from an x-ctxkit-call header', {
        path: 'params.call',
      });
    const { logIds, ...view } = unwrap(await sessionStub(c.env, key).callView(key, id));
    return html(c, renderCallPage({ sessionId: key.session, logIds: new Set(logIds), ...view }));
  });
}
