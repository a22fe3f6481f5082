/**
 * The recall routes of a session (`/v1/sessions/:id/recall`, `/reread`, `/remember`) in workerd: what a
 * proxied session's pipeline archived is found and read back whole; auth, scopes, tenants, sessions
 * and bad input are refused with the status and the field at fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';
import { openAIHistory } from './support/proxy-history.ts';

const FACT = 'DEPLOY NOTE: the release token is BLUE-HERON-42.';

let w: RunningWorker;
let fake: FakeProvider;
let t1: ReturnType<typeof client>;
let t2: ReturnType<typeof client>;
let ref: string;

/** A proxied call whose long history pushes its first tool output (holding `FACT`) out of the context. */
async function archivedSession(api: string, session: string, fact = FACT, userText?: string): Promise<void> {
  const h = openAIHistory(40) as Loose[];
  h[2].content = `${fact}\n${h[2].content}`;
  if (userText !== undefined) h[0].content = userText;
  fake.script({ kind: 'answer', text: 'ok' });
  const res = await w.request('/v1/proxy/openai/chat/completions', {
    method: 'POST',
    key: api,
    json: { model: 'gpt-4o', messages: [...h.slice(0, 159), { role: 'user', content: 'Go on.' }] },
    headers: { 'x-ctxkit-session': session, 'x-ctxkit-window': '16384', 'x-ctxkit-tools': 'on' },
  });
  expect(res.status).toBe(200);
  await res.text();
}

beforeAll(async () => {
  fake = await startFakeProvider();
  w = await startWorker({
    bindings: { UPSTREAM_OPENAI_BASE_URL: fake.openaiBase, UPSTREAM_OPENAI_API_KEY: 'sk-test' },
  });
  const k1 = await w.createKey('t1');
  t1 = client(w, k1);
  t2 = client(w, await w.createKey('t2'));
  await archivedSession(k1, 'rc-1');
  const found = await t1.post('/v1/sessions/rc-1/recall', { query: 'release token' });
  ref = found.body.hits[0]?.ref;
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});

describe('POST /v1/sessions/:session/recall', () => {
  it('finds what left the context, newest first, with its ref and the text the model would read', async () => {
    const r = await t1.post('/v1/sessions/rc-1/recall', { query: 'BLUE-HERON-42', limit: 3 });
    expect(r.status).toBe(200);
    expect(r.body.hits.length).toBeGreaterThan(0);
    expect(r.body.hits[0]).toMatchObject({ ref: expect.stringMatching(/^[ms][0-9a-f]{12}$/), role: 'tool' });
    expect(r.body.text).toContain('BLUE-HERON-42');
    expect(r.body.text).toContain(`reread('${r.body.hits[0].ref}')`);
  });

  it('answers that nothing was found when the query matches nothing archived', async () => {
    const r = await t1.post('/v1/sessions/rc-1/recall', { query: 'zanzibar quokka' });
    expect(r.status).toBe(200);
    expect(r.body.hits).toEqual([]);
    expect(r.body.text).toMatch(/^Nothing found/);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const empty = await t1.post('/v1/sessions/rc-1/recall', { query: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.path).toBe('query');
    const limit = await t1.post('/v1/sessions/rc-1/recall', { query: 'x', limit: 1000 });
    expect(limit.body.error.path).toBe('limit');
    const extra = await t1.post('/v1/sessions/rc-1/recall', { query: 'x', tenant: 't2' });
    expect(extra.status).toBe(400);
  });

  it('answers 409 naming settings.recall for a session made without recall', async () => {
    expect((await t1.post('/v1/sessions', { id: 'rc-plain' })).status).toBe(201);
    const r = await t1.post('/v1/sessions/rc-plain/recall', { query: 'x' });
    expect(r.status).toBe(409);
    expect(r.body.error.path).toBe('settings.recall');
    expect((await t1.post('/v1/sessions', { id: 'rc-on', recall: true })).status).toBe(201);
    expect((await t1.post('/v1/sessions/rc-on/recall', { query: 'x' })).status).toBe(200);
  });

  it('answers 404 for a session the tenant does not have, and 401 without a key', async () => {
    expect((await t1.post('/v1/sessions/nope/recall', { query: 'x' })).status).toBe(404);
    expect((await t2.post('/v1/sessions/rc-1/recall', { query: 'release token' })).status).toBe(404);
    const anon = await w.request('/v1/sessions/rc-1/recall', { method: 'POST', json: { query: 'x' } });
    expect(anon.status).toBe(401);
  });
});

describe('POST /v1/sessions/:session/reread', () => {
  it('returns the archived original whole by its ref', async () => {
    const r = await t1.post('/v1/sessions/rc-1/reread', { ref });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ref, messages: 1 });
    expect(r.body.text).toContain(FACT);
    expect(r.body.text).toContain('src/module0/file.ts:60:');
  });

  it('returns a message past 64 Ki characters whole (kept in R2) and finds it by its text', async () => {
    const big = Array.from({ length: 2000 }, (_, i) => `row ${i}: ${'x'.repeat(30)} checksum-${i}`).join(
      '\n',
    );
    // A pasted log in the first user message (a tool output would be cut on arrival, its whole in a blob).
    await archivedSession(
      await w.createKey('t1'),
      'rc-big',
      FACT,
      `BIG OUTPUT FOLLOWS\n${big}\nEND OF BIG OUTPUT`,
    );
    const found = await t1.post('/v1/sessions/rc-big/recall', { query: 'BIG OUTPUT FOLLOWS' });
    const bigRef = found.body.hits[0].ref as string;
    let text = '';
    for (let offset = 0, i = 0; i < 40; i++) {
      const page = (await t1.post('/v1/sessions/rc-big/reread', { ref: bigRef, offset })).body.text as string;
      const more = /\[truncated at character (\d+) of \d+/.exec(page);
      text += more ? page.slice(0, page.lastIndexOf('\n[truncated')) : page;
      if (!more) break;
      offset = Number(more[1]);
    }
    expect(text.length).toBeGreaterThan(64 * 1024);
    expect(text).toContain('row 1999: ');
    expect(text).toContain('END OF BIG OUTPUT');
  });

  it('pages on from an offset', async () => {
    const whole = (await t1.post('/v1/sessions/rc-1/reread', { ref })).body.text as string;
    const r = await t1.post('/v1/sessions/rc-1/reread', { ref, offset: 10 });
    expect(r.body.text).toBe(whole.slice(10));
  });

  it('refuses another tenant’s ref and another session’s ref as unknown (404)', async () => {
    // t2 has a session of the same id, with its own archive: t1's ref is not in it. (The same
    // content archived by t2 itself would have the same ref, and be t2's own.)
    await archivedSession(await w.createKey('t2'), 'rc-1', 'DEPLOY NOTE: t2 keeps its own token.');
    expect((await t2.post('/v1/sessions/rc-1/recall', { query: 'own token' })).body.hits).toHaveLength(1);
    const other = await t2.post('/v1/sessions/rc-1/reread', { ref });
    expect(other.status).toBe(404);
    expect(other.body.error.path).toBe('ref');
    // Another session of the same tenant does not resolve it either.
    await archivedSession(await w.createKey('t1'), 'rc-2', 'DEPLOY NOTE: rc-2 has another token.');
    const sibling = await t1.post('/v1/sessions/rc-2/reread', { ref });
    expect(sibling.status).toBe(404);
  });

  it('refuses a value that is not a ref with 400 naming ref', async () => {
    for (const bad of ['../../etc', 'm123', '', 'M0123456789AB']) {
      const r = await t1.post('/v1/sessions/rc-1/reread', { ref: bad });
      expect(r.status).toBe(400);
      expect(r.body.error.path).toBe('ref');
    }
  });
});

describe('POST /v1/sessions/:session/remember', () => {
  it('keeps a fact for the session that recall then finds', async () => {
    const r = await t1.post('/v1/sessions/rc-1/remember', { text: 'The staging database is called ORCA-7.' });
    expect(r.status).toBe(201);
    expect(r.body.text).toMatch(/^Remembered/);
    const found = await t1.post('/v1/sessions/rc-1/recall', { query: 'staging database' });
    expect(found.body.text).toContain('ORCA-7');
    const memories = await t1.get('/v1/memories?session=rc-1');
    expect(memories.body.memories.map((m: Loose) => [m.source, m.scope])).toContainEqual(['tool', 'session']);
  });

  it('keeps a remembered fact from another session’s recall', async () => {
    await t1.post('/v1/sessions/rc-1/remember', { text: 'The deploy window is Tuesday at PELICAN-9.' });
    expect((await t1.post('/v1/sessions', { id: 'rc-other', recall: true })).status).toBe(201);
    const other = await t1.post('/v1/sessions/rc-other/recall', { query: 'deploy window Tuesday' });
    expect(other.status).toBe(200);
    expect(other.body.text).not.toContain('PELICAN-9');
  });

  it('needs the write scope: a read-only key may recall and reread, not remember (403)', async () => {
    const made = await t1.post('/v1/keys', { scopes: ['read'] });
    const reader = client(w, made.body.key);
    expect((await reader.post('/v1/sessions/rc-1/recall', { query: 'release token' })).status).toBe(200);
    expect((await reader.post('/v1/sessions/rc-1/reread', { ref })).status).toBe(200);
    expect((await reader.post('/v1/sessions/rc-1/remember', { text: 'x' })).status).toBe(403);
  });
});
