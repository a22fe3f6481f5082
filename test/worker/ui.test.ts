/**
 * The context view's routes in workerd: the public page holds no data, the fragments and the view's
 * JSON need the key and are the tenant's own, the window's total is the `stats` route's, and a spilled
 * tool result's "get it back" link is a blob route that returns its bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';
import { openAIHistory, SPILLED_OUTPUT, spilledTurn } from './support/proxy-history.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const FAKE_PORT = Number(process.env.UI_TEST_PORT ?? 8833);

let w: RunningWorker;
let fake: FakeProvider;
let key: string;
let callLink: string;
const BIG = SPILLED_OUTPUT;
let logs = '';

beforeAll(async () => {
  fake = await startFakeProvider({ port: FAKE_PORT });
  w = await startWorker({
    onLog: (t) => {
      logs += t;
    },
    bindings: { UPSTREAM_OPENAI_BASE_URL: fake.openaiBase, UPSTREAM_OPENAI_API_KEY: 'sk-x' },
  });
  key = await w.createKey('t1');
  fake.script({ kind: 'answer', text: 'done' });
  const res = await w.request(OPENAI, {
    method: 'POST',
    key,
    headers: { 'x-ctxkit-session': 'ui-1', 'x-ctxkit-window': '16384' },
    json: {
      model: 'gpt-4o',
      messages: [...openAIHistory(30, 400), ...spilledTurn(), { role: 'user', content: 'Summarize.' }],
    },
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  callLink = res.headers.get('x-ctxkit-journal')!;
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});

describe('uiRoutes', () => {
  it('serves the page without a key, with no data, no external URL and a strict CSP', async () => {
    const res = await w.request('/ui');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<form id="signin"');
    expect(html).not.toMatch(/(src|href)="?https?:/);
    expect(html).not.toContain('ui-1');
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('refuses the fragments without a key or with a wrong one (401)', async () => {
    expect((await w.request('/v1/ui/sessions')).status).toBe(401);
    expect(
      (await client(w, 'ctx_000000000000_wrongwrongwrongwrongwrongwrongwrong').get('/v1/ui/sessions')).status,
    ).toBe(401);
  });

  it('lists the session with its level and finds it by id', async () => {
    const r = await client(w, key).get('/v1/ui/sessions?q=ui-');
    expect(r.status).toBe(200);
    expect(r.body).toContain('href="#&#47;sessions&#47;ui-1"');
    expect(r.body).toMatch(/level-(ok|warn|compact|block)/);
    expect((await client(w, key).get('/v1/ui/sessions?q=nothing-like-it')).body).toContain('0 of 1 match');
  });

  it('draws the window with the stats route total and one row per message the agent sees', async () => {
    const stats = (await client(w, key).get('/v1/sessions/ui-1/stats')).body;
    const view = (await client(w, key).get('/v1/sessions/ui-1/view')).body as Loose;
    expect(view.view.tokens).toBe(stats.context.tokens);
    expect(view.view.level).toBe(stats.context.level);
    expect(view.view.budget.usable).toBe(stats.context.usable);
    expect(view.view.rows).toHaveLength(stats.context.messages);
    const sum = view.view.segments.reduce((n: number, s: Loose) => n + s.tokens, 0);
    expect(sum).toBe(view.view.counted);
    expect(view.calls).toHaveLength(1);
    expect(view.calls[0].estimate.before).toBeGreaterThan(view.calls[0].estimate.after);
    const page = (await client(w, key).get('/v1/ui/sessions/ui-1')).body as string;
    expect(page).toContain(`<strong>${stats.context.tokens.toLocaleString('en-US')}</strong> tokens`);
    expect(page).toContain(`Messages (${stats.context.messages.toLocaleString('en-US')})`);
  });

  it('links each removal of a call to where it can be read back, and the blob link returns the bytes', async () => {
    const call = (await client(w, key).get(callLink)).body.call as Loose;
    const id = callLink.split('/').at(-1)!;
    const page = (await client(w, key).get(`/v1/ui/sessions/ui-1/calls/${id}`)).body as string;
    expect(page).toContain('Client sent → upstream');
    const spilled = call.journal.find((j: Loose) => j.location.startsWith('blob:'));
    expect(spilled, JSON.stringify(call.journal.slice(0, 3))).toBeDefined();
    const href = `/v1/blobs/${spilled.location.slice(5)}`;
    expect(page).toContain(`href="${href.replaceAll('/', '&#47;')}"`);
    const bytes = (await client(w, key).get(href)).body as string;
    expect(bytes).toBe(BIG);
  });

  it('answers 404 for another tenant’s session, its view and its calls', async () => {
    const other = await w.createKey('t2');
    const id = callLink.split('/').at(-1)!;
    expect((await client(w, other).get('/v1/ui/sessions/ui-1')).status).toBe(404);
    expect((await client(w, other).get('/v1/sessions/ui-1/view')).status).toBe(404);
    expect((await client(w, other).get(`/v1/ui/sessions/ui-1/calls/${id}`)).status).toBe(404);
    expect((await client(w, other).get('/v1/ui/sessions')).body).not.toContain('ui-1');
  });
});
