import { createHash } from 'node:crypto';
/**
 * The context view's routes in workerd: the public page holds no data, the fragments and the view's
 * JSON need the key and are the tenant's own, the window's total is the `stats` route's, a spilled
 * tool result's "get it back" link is a blob route that returns its bytes, a call's page lists what the
 * client sent (not what was logged after) beside what went upstream, and the timeline holds the
 * session API's prepares and compactions beside the proxy's calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boundedRefs,
  type CallRecord,
  createCallLog,
  expandRefs,
  MAX_REFS,
  messageRefs,
  seqRefs,
} from '../../src/worker/proxy/call-log.ts';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';
import { openAIHistory, SPILLED_OUTPUT, spilledTurn } from './support/proxy-history.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
// Any free port unless one is asked (a fixed one collides with another run of this file on the machine).
const FAKE_PORT = Number(process.env.UI_TEST_PORT ?? 0);

let w: RunningWorker;
let fake: FakeProvider;
let key: string;
let callLink: string;
const BIG = SPILLED_OUTPUT;
let _logs = '';

beforeAll(async () => {
  fake = await startFakeProvider({ port: FAKE_PORT });
  w = await startWorker({
    onLog: (t) => {
      _logs += t;
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

  it("lets only the page's own inline script and style block apply, by their SHA-256, never 'unsafe-inline'", async () => {
    const res = await w.request('/ui');
    const html = await res.text();
    const csp = res.headers.get('content-security-policy') ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect(/script-src ([^;]*)/.exec(csp)![1]).toBe(`'sha256-${hash}'`);
    expect(csp).not.toMatch(/unsafe-inline/);
    expect(csp).toContain("style-src-attr 'none'");
    expect(/style-src-elem ([^;]*)/.exec(csp)![1]).toMatch(/^'sha256-[A-Za-z0-9+/=]+'$/);
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

/** The `<tr>` rows of a call page's message table that carry a log seq (a full text spans lines). */
function seqRows(page: string): Array<{ seq: number; html: string }> {
  return [...page.matchAll(/<tr data-seq="(\d+)"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => ({
    seq: Number(m[1]),
    html: m[2]!,
  }));
}

/** `1–3, 7` → [1, 2, 3, 7]. */
function expandSeqs(ranges: string): number[] {
  return ranges.split(', ').flatMap((r) => {
    const [a, b] = r.split('–').map(Number);
    return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
  });
}

/** The rows that stand for a run of messages an earlier call left out, with the seqs they list. */
function leftOutRuns(page: string): Array<{ seqs: string; html: string }> {
  return [
    ...page.matchAll(/<tr class="group" data-state="unsent" data-seqs="([^"]+)">([\s\S]*?)<\/tr>/g),
  ].map((m) => ({ seqs: m[1]!, html: m[2]! }));
}

describe('a call page: what the client sent beside what went upstream', () => {
  const firstHistory = () => [
    ...openAIHistory(30, 400),
    ...spilledTurn(),
    { role: 'user', content: 'Summarize.' },
  ];

  it('lists the client’s messages of that call only, each kept or changed with its journal entry', async () => {
    const id = callLink.split('/').at(-1)!;
    const page = (await client(w, key).get(`/v1/ui/sessions/ui-1/calls/${id}`)).body as string;
    const rows = seqRows(page);
    // Every message the client sent, in order, and not the answer logged after the call.
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: firstHistory().length }, (_, i) => i + 1));
    const log = (await client(w, key).get('/v1/sessions/ui-1/messages')).body.messages as Loose[];
    expect(log).toHaveLength(firstHistory().length + 1);
    expect(page).not.toContain(`data-seq="${log.at(-1).seq}"`);
    const call = (await client(w, key).get(callLink)).body.call as Loose;
    const logged = new Set(log.map((r) => r.message.id));
    // Each change to a message of the log is on its row (the others are messages ctxkit made).
    for (const j of call.journal.filter((e: Loose) => logged.has(e.messageId))) {
      const row = rows.find((r) => r.html.includes(`>${j.messageId}<`));
      expect(row, j.messageId).toBeDefined();
      expect(row!.html).toContain(`<strong>${j.action}</strong> by ${j.stage}`);
      expect(row!.html).toContain('data-recover');
    }
    // Every session-log link names a message the log holds (a digest ctxkit made has no row to link).
    const links = [...page.matchAll(/href="([^"]*messages[^"]*)" data-recover="([^"]+)"/g)];
    expect(links.length).toBeGreaterThan(0);
    for (const l of links) expect(logged.has(l[2]!), l[2]).toBe(true);
    // Messages that went upstream as the client sent them say so, with their tokens.
    const sent = rows.filter((r) => r.html.includes('<td data-label="this call">sent</td>'));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]!.html).toMatch(/<td class="num" data-label="tokens">\d[\d,]*<\/td>/);
    // It opens on what the call changed: the section comes before the list.
    expect(page.indexOf('id="changed-h"')).toBeLessThan(page.indexOf('id="sent-h"'));
  });

  it('names, on a later call, the messages an earlier call left out, with a log link that gets them back', async () => {
    fake.script({ kind: 'answer', text: 'again' });
    const res = await w.request(OPENAI, {
      method: 'POST',
      key,
      headers: { 'x-ctxkit-session': 'ui-1', 'x-ctxkit-window': '16384' },
      json: {
        model: 'gpt-4o',
        messages: [
          ...firstHistory(),
          { role: 'assistant', content: 'done' },
          { role: 'user', content: 'And now?' },
        ],
      },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const second = res.headers.get('x-ctxkit-journal')!.split('/').at(-1)!;
    const page = (await client(w, key).get(`/v1/ui/sessions/ui-1/calls/${second}`)).body as string;
    // Every message the client sent: one row each, a run an earlier call left out as one row.
    const runs = leftOutRuns(page);
    expect(runs.length).toBeGreaterThan(0);
    const seqs = [...seqRows(page).map((r) => r.seq), ...runs.flatMap((r) => expandSeqs(r.seqs))];
    expect(seqs.sort((a, b) => a - b)).toEqual(
      Array.from({ length: firstHistory().length + 2 }, (_, i) => i + 1),
    );
    expect(runs[0]!.html).toContain('left out by an earlier call');
    const link = /href="([^"]+)" data-recover="([^"]+)"/.exec(runs[0]!.html)!;
    const href = link[1]!.replaceAll('&#47;', '/');
    const [path, messageId] = href.split('#');
    expect(path).toMatch(/^\/v1\/sessions\/ui-1\/messages\?after=\d+$/);
    const back = (await client(w, key).get(path!)).body.messages as Loose[];
    expect(back[0].message.id).toBe(decodeURIComponent(messageId!));
    expect(back[0].seq).toBe(expandSeqs(runs[0]!.seqs)[0]);
    // What it sends beside what the first call sent.
    expect(page).toContain('id="since-h"');
    expect(page).toMatch(/\+ \d+ log messages now sent that it did not send: seq/);
  });

  it('shows, for a call retried after a context overflow, what the retry sent upstream', async () => {
    fake.script({ kind: 'overflow' }, { kind: 'answer', text: 'after the retry' });
    const res = await w.request(OPENAI, {
      method: 'POST',
      key,
      headers: { 'x-ctxkit-session': 'ui-ovf', 'x-ctxkit-window': '200000' },
      json: { model: 'gpt-4o', messages: openAIHistory(40, 60) },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('x-ctxkit-retried')).toBe('1');
    const id = res.headers.get('x-ctxkit-journal')!.split('/').at(-1)!;
    const call = (await client(w, key).get(res.headers.get('x-ctxkit-journal')!)).body.call as Loose;
    expect(call.overflow.output.length).toBeGreaterThan(0);
    const page = (await client(w, key).get(`/v1/ui/sessions/ui-ovf/calls/${id}`)).body as string;
    expect(page).toContain('Client sent → upstream (the retry)');
    expect(page).toContain('recovered from a context overflow');
    // The recovery's removals are on the rows of the messages the client sent.
    const rows = seqRows(page);
    const seqs = [...rows.map((r) => r.seq), ...leftOutRuns(page).flatMap((r) => expandSeqs(r.seqs))];
    expect(seqs).toHaveLength(160);
    expect(rows.filter((r) => r.html.includes('<td data-label="this call">sent</td>')).length).toBeLessThan(
      160,
    );
  });

  it('records the session API’s prepare and compact runs in the timeline, each with its own page', async () => {
    expect((await client(w, key).post('/v1/sessions/ui-1/prepare', {})).status).toBe(200);
    const compact = await client(w, key).post('/v1/sessions/ui-1/compact', { instructions: 'keep paths' });
    expect(compact.status).toBe(200);
    const overflow = await client(w, key).post('/v1/sessions/ui-1/overflow', {
      error: 'prompt is too long: 20000 tokens > 16384 maximum',
    });
    expect(overflow.status).toBe(200);
    const view = (await client(w, key).get('/v1/sessions/ui-1/view')).body as Loose;
    expect(view.calls.map((c: Loose) => c.kind)).toEqual([
      'proxy',
      'proxy',
      'prepare',
      'compact',
      'overflow',
    ]);
    const run = view.calls[3];
    expect(run.estimate).toEqual(compact.body.estimate);
    expect(run.reports.map((r: Loose) => r.stage)).toEqual(compact.body.reports.map((r: Loose) => r.stage));
    const session = (await client(w, key).get('/v1/ui/sessions/ui-1')).body as string;
    expect(session).toContain(
      'Timeline (2 proxy calls, 1 prepare, 1 compact, 1 overflow recovery; newest first)',
    );
    expect(session).toContain('>overflow recovery</a>');
    expect(session).toContain(`href="#&#47;sessions&#47;ui-1&#47;calls&#47;${run.id}"`);
    // The timeline pages: from the third newest call on, without the window above it; a bad offset is a 400.
    const older = (await client(w, key).get('/v1/ui/sessions/ui-1?offset=2')).body as string;
    expect(older).toContain('calls 3–5 of 5 (newest first)');
    expect(older).toContain(`href="#&#47;sessions&#47;ui-1?offset=0"`);
    expect(older).not.toContain('id="ctx-window"');
    expect((await client(w, key).get('/v1/ui/sessions/ui-1?offset=-1')).status).toBe(400);
    expect((await client(w, key).get('/v1/ui/sessions/ui-1?offset=x')).status).toBe(400);
    const page = (await client(w, key).get(`/v1/ui/sessions/ui-1/calls/${run.id}`)).body as string;
    expect(page).toContain(`Compaction ${run.id}`);
    expect(page).toContain('Context before → returned');
    // The context the run started from, message by message: as many rows as the working context held.
    const before = view.calls[2].estimate;
    expect(before).toBeDefined();
    expect(seqRows(page).length).toBeGreaterThan(0);
    for (const j of compact.body.journal.filter((e: Loose) => e.action !== 'inserted'))
      expect(page).toContain(`<strong>${j.action}</strong> by ${j.stage}`);
  });
});

describe('call records’ message lists', () => {
  const m = (id: string) => ({ id, role: 'user' as const, parts: [{ type: 'text' as const, text: id }] });
  const rows = ['a', 'b', 'c', 'd'].map((id, i) => ({
    seq: i + 1,
    message: m(id),
    createdAt: 0,
    compacted: false,
  }));

  it('keeps runs of log rows as ranges, rewritten rows by seq and ctxkit’s messages by id', () => {
    const rewritten = { ...m('c'), parts: [{ type: 'text' as const, text: 'cut' }] };
    const refs = messageRefs([rows[0]!.message, rows[1]!.message, m('summary'), rewritten], rows);
    expect(refs).toEqual([[1, 2], { id: 'summary' }, { seq: 3 }]);
    expect(expandRefs(refs)).toEqual([
      { seq: 1, changed: false },
      { seq: 2, changed: false },
      { id: 'summary' },
      { seq: 3, changed: true },
    ]);
    expect(seqRefs([1, 2, 3, 7, 8, 10])).toEqual([
      [1, 3],
      [7, 8],
      [10, 10],
    ]);
  });

  it('cuts a list at its bound and says so', () => {
    const many = Array.from({ length: MAX_REFS + 5 }, (_, i) => ({ id: `x${i}` }));
    const bounded = boundedRefs(seqRefs([1, 2]), many);
    expect(bounded.output).toHaveLength(MAX_REFS);
    expect(bounded.cut).toBe(true);
    expect(boundedRefs([[1, 2]], [[1, 2]]).cut).toBeUndefined();
  });
});

describe('the call log’s timeline', () => {
  function memoryStorage() {
    const map = new Map<string, unknown>();
    const reads: string[] = [];
    return {
      map,
      reads,
      storage: {
        async get<T>(key: string) {
          reads.push(key);
          return structuredClone(map.get(key)) as T | undefined;
        },
        async put<T>(key: string, value: T) {
          map.set(key, structuredClone(value));
        },
        async delete(keys: string[]) {
          return keys.filter((k) => map.delete(k)).length;
        },
      },
    };
  }
  const record = (id: string, kind: CallRecord['kind']): CallRecord => ({
    ...(kind ? { kind } : {}),
    id,
    at: 1,
    provider: 'neutral',
    model: '',
    stream: false,
    appended: 0,
    diverged: false,
    estimate: { before: 10, after: 5, level: 'ok', anchored: false },
    reports: [],
    journal: [
      {
        stage: 's',
        action: 'removed',
        messageId: 'm',
        tokensBefore: 5,
        tokensAfter: 0,
        location: 'session-log',
        recover: '',
      },
    ],
  });

  it('reads summaries only, keeps them in step with updates and drops them with their records', async () => {
    const m = memoryStorage();
    // Details for the newest 2 calls, summaries for the newest 3.
    const log = createCallLog(m.storage, 2, 3);
    await log.put(record('a', 'prepare'));
    await log.put(record('b', 'proxy'));
    await log.update('b', { upstream: { status: 200, logged: true } });
    await log.put(record('c', 'compact'));
    await log.put(record('d', 'prepare'));
    m.reads.length = 0;
    const summaries = await log.summaries();
    expect(summaries.map((s) => [s.id, s.kind, s.changes])).toEqual([
      ['b', 'proxy', { removed: 1 }],
      ['c', 'compact', { removed: 1 }],
      ['d', 'prepare', { removed: 1 }],
    ]);
    expect(summaries[0]!.upstream?.status).toBe(200);
    // No record (no journal) was read for the timeline, and the dropped call left nothing behind.
    expect(m.reads.filter((k) => k.startsWith('proxy:call:'))).toEqual([]);
    expect([...m.map.keys()].filter((k) => k.endsWith(':a'))).toEqual([]);
    // The oldest kept call keeps its summary, not its details.
    expect(await log.get('b')).toBeUndefined();
    expect(await log.get('c')).toBeDefined();
  });

  it('pages the timeline newest first and counts every call it recorded', async () => {
    const m = memoryStorage();
    const log = createCallLog(m.storage, 2, 3);
    for (const id of ['a', 'b', 'c', 'd', 'e']) await log.put(record(id, 'proxy'));
    const first = await log.page(0, 2);
    expect(first.calls.map((c) => c.id)).toEqual(['d', 'e']);
    expect([first.total, first.kept, first.detailed]).toEqual([5, 3, 2]);
    expect((await log.page(2, 2)).calls.map((c) => c.id)).toEqual(['c']);
    expect((await log.previous('e'))?.id).toBe('d');
  });

  it('keeps a text the records name once, and deletes it when no kept record names it', async () => {
    const m = memoryStorage();
    const log = createCallLog(m.storage, 1, 5);
    const ref = { digest: 'd1', tokens: 3, chars: 11 };
    const texts = new Map([['d1', 'hello world']]);
    await log.put({ ...record('a', 'proxy'), prompt: { system: ref } }, texts);
    await log.put({ ...record('b', 'proxy'), prompt: { system: ref } }, texts);
    expect(await log.text('d1')).toBe('hello world');
    // a's details left the window; b still names the text.
    await log.put(record('c', 'proxy'));
    expect(await log.text('d1')).toBeUndefined();
    expect([...m.map.keys()].filter((k) => k.startsWith('proxy:text:'))).toEqual([]);
  });

  it('summarizes a record kept before summaries were', async () => {
    const m = memoryStorage();
    const log = createCallLog(m.storage);
    await log.put(record('old', undefined));
    m.map.delete('proxy:summary:old');
    expect((await log.summaries()).map((s) => [s.id, s.kind])).toEqual([['old', 'proxy']]);
  });
});
