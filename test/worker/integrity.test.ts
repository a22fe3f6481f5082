/**
 * Stored data that stays right, end to end in workerd (issue 42): what the provider accepts is stored
 * with its turn (a 2.2 MB image, an answer over a D1 row), a session has a visible size bound checked
 * before the upstream is paid, every list and log pages, a model's deep JSON bricks neither the session
 * nor the tenant's list, and one broken session never fails that list.
 */
import { describe, expect, it } from 'vitest';
import type { FakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { useProxyWorker } from './support/proxy-worker.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  'acme',
  () => ({
    MAX_BODY_BYTES: '600000',
    MAX_SESSION_BYTES: '1048576',
    PROXY_MAX_MESSAGES: '40',
  }),
  (r) => ({ w, fake, key } = r),
);

async function proxied(session: string, messages: unknown[], model = 'gpt-4o') {
  const res = await w.request(OPENAI, {
    method: 'POST',
    key,
    headers: { 'x-ctxkit-session': session },
    json: { model, messages },
  });
  return { status: res.status, text: await res.text() };
}

async function log(session: string): Promise<Loose[]> {
  return (await client(w, key).get(`/v1/sessions/${session}/messages`)).body.messages;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return read();
}

describe('large content', () => {
  it('stores a proxied 900 KB image and logs a 1.5 MB answer whole, one upstream call', async () => {
    const url = `data:image/png;base64,${'i'.repeat(900_000)}`;
    fake.script({ kind: 'answer', text: 'a'.repeat(1_500_000) });
    const r = await proxied('big', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url } },
        ],
      },
    ]);
    expect(r.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    const rows = await until(
      () => log('big'),
      (rows) => rows.length === 2,
    );
    expect(rows[0].message.parts[1].url).toBe(url);
    expect(rows[1].message.parts[0].text).toHaveLength(1_500_000);
  });
});

describe('MAX_SESSION_BYTES', () => {
  it('refuses what would take a session past its bound, on the routes and on the proxy before the upstream', async () => {
    const c = client(w, key);
    await c.post('/v1/sessions', { id: 'full' });
    const append = () =>
      c.post('/v1/sessions/full/messages', {
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'x'.repeat(450_000) }] }],
      });
    expect((await append()).status).toBe(201);
    expect((await append()).status).toBe(201);
    const refused = await append();
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({ code: 'payload_too_large', path: 'messages' });
    expect(refused.body.error.message).toMatch(/past its bound of 1048576 \(MAX_SESSION_BYTES\)/);
    expect(await log('full')).toHaveLength(2);
    const r = await proxied('full', [{ role: 'user', content: 'y'.repeat(300_000) }]);
    expect(r.status).toBe(413);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('PROXY_MAX_MESSAGES', () => {
  const turns = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }));

  it('refuses a history longer than its bound before anything is stored or sent, in each protocol', async () => {
    const r = await proxied('long', turns(41));
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).error).toMatchObject({ code: 'payload_too_large', path: 'messages' });
    expect(r.text).toMatch(/41 elements; the proxy takes at most 40 in one request \(PROXY_MAX_MESSAGES\)/);
    const responses = await w.request('/v1/proxy/openai/responses', {
      method: 'POST',
      key,
      json: { model: 'gpt-4o', input: turns(41) },
    });
    expect(responses.status).toBe(413);
    expect((await responses.json()) as Loose).toMatchObject({ error: { path: 'input' } });
    const anthropic = await w.request('/v1/proxy/anthropic/v1/messages', {
      method: 'POST',
      key,
      json: { model: 'claude-sonnet-4-5', max_tokens: 10, messages: turns(41) },
    });
    expect(anthropic.status).toBe(413);
    expect(fake.requests).toHaveLength(0);
    // The session was not even created.
    expect((await client(w, key).get('/v1/sessions/long/messages')).status).toBe(404);
    // Under the bound, the call goes through.
    expect((await proxied('long', turns(40))).status).toBe(200);
  });
});

describe('pages', () => {
  it('walks the log and the session list page by page', async () => {
    const c = client(w, key);
    await c.post('/v1/sessions', { id: 'paged' });
    await c.post('/v1/sessions/paged/messages', {
      messages: ['a', 'b', 'c'].map((t) => ({ role: 'user', parts: [{ type: 'text', text: t }] })),
    });
    const first = await c.get('/v1/sessions/paged/messages?limit=2');
    expect([first.body.messages.map((r: Loose) => r.seq), first.body.next]).toEqual([[1, 2], '2']);
    const second = await c.get(`/v1/sessions/paged/messages?limit=2&cursor=${first.body.next}`);
    expect([second.body.messages.map((r: Loose) => r.seq), second.body.next]).toEqual([[3], null]);
    expect((await c.get('/v1/sessions/paged/messages?after=1&cursor=2')).status).toBe(400);
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 20; i++) {
      const page = await c.get(`/v1/sessions?limit=1${cursor}`);
      seen.push(...page.body.sessions.map((s: Loose) => s.id));
      if (!page.body.next) break;
      cursor = `&cursor=${encodeURIComponent(page.body.next)}`;
    }
    expect(seen).toContain('paged');
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe("a session the tenant's list cannot read", () => {
  it('leaves /v1/ui/sessions 200, the other sessions listed', async () => {
    const c = client(w, key);
    await c.post('/v1/sessions', { id: 'healthy' });
    await c.post('/v1/sessions', { id: 'broken' });
    await c.post('/v1/sessions/broken/messages', {
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'soon broken' }] }],
    });
    // A row no code of ctxkit would write: its read throws inside the session's object.
    await (await w.db())
      .prepare("UPDATE session_messages SET message = '{not json' WHERE session_id = 'broken'")
      .run();
    const list = await w.request('/v1/ui/sessions', { key });
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain('healthy');
    expect(html).toContain('broken');
  });
});

describe('a model’s 2,500-level tool arguments', () => {
  it('are stored opaque: stats, view and the list stay 200, and the next call sends them back as they came', async () => {
    const args = `${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}`;
    fake.script({ kind: 'answer', toolCalls: [{ id: 'c1', name: 'f', args: {}, argumentsText: args }] });
    expect((await proxied('deep', [{ role: 'user', content: 'go' }])).status).toBe(200);
    await until(
      () => log('deep'),
      (rows) => rows.length === 2,
    );
    const c = client(w, key);
    for (const path of ['/v1/sessions/deep/stats', '/v1/sessions/deep/view'])
      expect((await c.get(path)).status).toBe(200);
    expect((await w.request('/v1/ui/sessions', { key })).status).toBe(200);
    fake.reset();
    const next = await proxied('deep', [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
    ]);
    expect(next.status).toBe(200);
    expect(fake.requests[0]!.body.messages[1].tool_calls[0].function.arguments).toBe(args);
  });
});
