/**
 * Stored data stays right (issue 42): whatever the provider accepts is stored (large messages, images,
 * answers), a model's deep JSON bricks nothing, spilled outputs never collide and a failed spill loses
 * nothing, a session has a visible size bound, every log pages, and a keyed append stores once through
 * a kill -9 at its worst instant. The relay's cases are in integrity.ts.
 */
import { killPhase } from '../faults-kill.ts';
import { eventually, sleep } from '../support/attack-http.ts';
import type { AttackCase, AttackEnv } from './types.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';

interface Row {
  seq: number;
  message: { id: string; role: string; parts: Array<Record<string, unknown>> };
}

/** Every row of a session's log, following the pages. */
async function logRows(env: AttackEnv, session: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const q = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const res = await fetch(`${env.service.base}/v1/sessions/${session}/messages${q}`, {
      headers: env.headers(),
    });
    if (!res.ok) return rows;
    const body = (await res.json()) as { messages: Row[]; next?: string | null };
    rows.push(...body.messages);
    if (!body.next) return rows;
    cursor = body.next;
  }
  return rows;
}

const post = (env: AttackEnv, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(env.service.base + path, {
    method: 'POST',
    headers: { ...env.headers(), ...headers },
    body: JSON.stringify(body),
  });

/** A new `kosmokrator` session given one tool call `callId` whose output is `output`; the append's journal. */
async function kosmokratorOutput(env: AttackEnv, session: string, callId: string, output: string) {
  await post(env, '/v1/sessions', { id: session, preset: 'kosmokrator' });
  const res = await post(env, `/v1/sessions/${session}/messages`, {
    format: 'openai',
    messages: [
      { role: 'user', content: 'run it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: callId, type: 'function', function: { name: 'sh', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: callId, content: output },
    ],
  });
  const body = (await res.json()) as { journal?: Array<{ action: string; location?: string }> };
  return { status: res.status, journal: body.journal ?? [] };
}

/** A deeply nested JSON text: `{"a":{"a":…1…}}`. */
function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A proxied call with a session carrying `content` as its user message: status, upstream calls, stored. */
async function largeTurn(env: AttackEnv, content: unknown, size: (row: Row) => number, expected: number) {
  const session = env.id('large');
  env.fake.reset();
  const res = await fetch(env.service.base + OPENAI, {
    method: 'POST',
    headers: env.headers(session),
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
  });
  const text = await res.text();
  const upstream = env.fake.requests.length;
  const rows = await logRows(env, session);
  const stored = rows.find((r) => r.message.role === 'user');
  const storedSize = stored ? size(stored) : 0;
  return {
    held: res.status === 200 && upstream === 1 && storedSize === expected,
    detail: `${res.status}${res.status === 200 ? '' : ` ${text.slice(0, 100)}`}, ${upstream} upstream call(s), stored ${storedSize} of ${expected} characters`,
  };
}

export const cases: AttackCase[] = [
  {
    name: '2.2 MB image with a session',
    promise: 'a proxied image the provider accepts is stored with its turn: 200, one upstream call',
    fast: true,
    async run(env) {
      const url = `data:image/png;base64,${'i'.repeat(2_200_000)}`;
      return largeTurn(
        env,
        [
          { type: 'text', text: 'what is in it?' },
          { type: 'image_url', image_url: { url } },
        ],
        (r) => {
          const image = r.message.parts.find((p) => p.type === 'image');
          return String(image?.url ?? image?.data ?? '').length;
        },
        url.length,
      );
    },
  },
  {
    name: '1.3 MB message with a session',
    promise: 'a proxied message over a D1 row is stored with its turn: 200, one upstream call',
    fast: true,
    async run(env) {
      const text = 'word '.repeat(260_000);
      return largeTurn(
        env,
        text,
        (r) => String(r.message.parts.find((p) => p.type === 'text')?.text ?? '').length,
        text.length,
      );
    },
  },
  {
    name: '1.5 MB answer logged',
    promise: 'an answer larger than a D1 row is relayed and logged whole',
    fast: true,
    async run(env) {
      const session = env.id('bigans');
      const answer = 'a'.repeat(1_500_000);
      env.fake.scriptModel('big-answer', { kind: 'answer', text: answer });
      const res = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: env.headers(session),
        body: JSON.stringify({ model: 'big-answer', messages: [{ role: 'user', content: 'long please' }] }),
      });
      await res.text();
      const logged = await eventually(5000, async () => {
        const row = (await logRows(env, session)).find((r) => r.message.role === 'assistant');
        return row ? String(row.message.parts[0]?.text ?? '').length : undefined;
      });
      return {
        held: res.status === 200 && logged === answer.length,
        detail: `${res.status}, logged ${logged ?? 0} of ${answer.length} characters`,
      };
    },
  },
  {
    name: 'deep-JSON answer',
    promise:
      "a model's 2,500-level tool arguments are stored as they came: the session, its view and the tenant's list stay 200, the next call sends them back byte for byte",
    fast: true,
    async run(env) {
      const session = env.id('deep');
      const args = deepJson(2500);
      env.fake.scriptModel('deep', {
        kind: 'answer',
        toolCalls: [{ id: 'call_deep', name: 'f', args: {}, argumentsText: args }],
      });
      const first = [{ role: 'user', content: 'call f' }];
      const r1 = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: env.headers(session),
        body: JSON.stringify({ model: 'deep', messages: first }),
      });
      await r1.text();
      await sleep(500);
      const get = async (path: string) =>
        (await fetch(env.service.base + path, { headers: env.headers() })).status;
      const stats = await get(`/v1/sessions/${session}/stats`);
      const view = await get(`/v1/sessions/${session}/view`);
      const list = await get('/v1/ui/sessions');
      env.fake.reset();
      const history = [
        ...first,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_deep', type: 'function', function: { name: 'f', arguments: args } }],
        },
        { role: 'tool', tool_call_id: 'call_deep', content: 'done' },
      ];
      const r2 = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: env.headers(session),
        body: JSON.stringify({ model: 'gpt-4o', messages: history }),
      });
      await r2.text();
      const sent = env.fake.requests[0]?.body?.messages?.find(
        (m: { role: string }) => m.role === 'assistant',
      );
      const exact = sent?.tool_calls?.[0]?.function?.arguments === args;
      return {
        held: [r1.status, stats, view, list, r2.status].every((s) => s === 200) && exact,
        detail: `answer ${r1.status}, stats ${stats}, view ${view}, /v1/ui/sessions ${list}, next call ${r2.status}, arguments sent back ${exact ? 'byte for byte' : 'CHANGED or missing'}`,
      };
    },
  },
  {
    name: 'deep JSON on the session routes',
    promise: 'deep JSON in tools, config or a part’s extra is a 400 naming the path, not a 500',
    fast: true,
    async run(env) {
      const deep = JSON.parse(deepJson(2500)) as unknown;
      const session = env.id('deeproutes');
      await post(env, '/v1/sessions', { id: session });
      const replies = await Promise.all([
        post(env, `/v1/sessions/${session}/prepare`, { tools: [deep] }),
        post(env, '/v1/sessions', { id: env.id('deepcfg'), config: { outputTruncation: deep } }),
        post(env, `/v1/sessions/${session}/messages`, {
          messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi', extra: { x: deep } }] }],
        }),
      ]);
      const seen = await Promise.all(
        replies.map(async (r) => {
          const body = (await r.json().catch(() => ({}))) as { error?: { path?: string | null } };
          return `${r.status} ${String(body.error?.path ?? '').slice(0, 30)}`;
        }),
      );
      return {
        held: replies.every((r) => r.status === 400) && seen.every((s) => !s.endsWith(' ')),
        detail: `tools, config, extra: ${seen.join('; ')}`,
      };
    },
  },
  {
    name: 'kosmokrator: one call id in two sessions',
    promise: "two sessions' spilled outputs with the same call id each read back their own",
    fast: true,
    async run(env) {
      const spill = async (letter: string) =>
        (await kosmokratorOutput(env, env.id('kosmo'), 'call_0', letter.repeat(60_000))).journal
          .find((j) => j.location?.startsWith('blob:'))
          ?.location?.slice(5);
      const [a, b] = [await spill('A'), await spill('B')];
      const read = async (id: string | undefined) =>
        id === undefined
          ? ''
          : await (
              await fetch(`${env.service.base}/v1/blobs/${encodeURIComponent(id)}`, {
                headers: env.headers(),
              })
            ).text();
      const [ta, tb] = [await read(a), await read(b)];
      const own = ta === 'A'.repeat(60_000) && tb === 'B'.repeat(60_000);
      return {
        held: own && a !== b,
        detail: `blob ids ${a ?? 'none'} / ${b ?? 'none'}; first reads back ${ta.slice(0, 1) || 'nothing'}×${ta.length}, second ${tb.slice(0, 1) || 'nothing'}×${tb.length}`,
      };
    },
  },
  {
    name: 'spill of a call id over 512 characters',
    promise:
      'an output whose spill cannot be named as asked is still kept whole (in the blob store or the log), and says where',
    fast: true,
    async run(env) {
      const session = env.id('longid');
      const callId = `c${'x'.repeat(600)}`;
      const output = 'line of output\n'.repeat(44_000);
      const res = await kosmokratorOutput(env, session, callId, output);
      const entry = res.journal[0];
      let whole = false;
      if (entry?.location?.startsWith('blob:')) {
        const blob = await fetch(
          `${env.service.base}/v1/blobs/${encodeURIComponent(entry.location.slice(5))}`,
          {
            headers: env.headers(),
          },
        );
        whole = (await blob.text()) === output;
      } else {
        const row = (await logRows(env, session)).find((r) => r.message.role === 'tool');
        whole = row?.message.parts[0]?.output === output;
      }
      return {
        held: res.status === 201 && whole,
        detail: `${res.status}, journal: ${entry ? `${entry.action} at ${entry.location?.slice(0, 40)}` : 'none'}, output ${whole ? 'whole' : 'CUT'} where it says`,
      };
    },
  },
  {
    name: 'session size bound',
    promise:
      'a session past MAX_SESSION_BYTES refuses new content with a 413 naming the bound, on the routes and on the proxy before the upstream is paid',
    fast: true,
    vars: { MAX_SESSION_BYTES: '16777216' }, // the run's, for "a context of 140,000 messages" too
    async run(env) {
      const session = env.id('full');
      await post(env, '/v1/sessions', { id: session });
      const statuses: number[] = [];
      let refusal = '';
      // Appends of 900 KB (the routes take 1 MiB bodies) until the 16 MiB session is full.
      for (let i = 0; i < 24; i++) {
        const r = await post(env, `/v1/sessions/${session}/messages`, {
          messages: [{ role: 'user', parts: [{ type: 'text', text: `${i % 10}`.repeat(900_000) }] }],
        });
        statuses.push(r.status);
        if (r.status !== 201) {
          refusal = await r.text();
          break;
        }
      }
      env.fake.reset();
      const proxied = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: env.headers(session),
        body: JSON.stringify({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'y'.repeat(2_000_000) }],
        }),
      });
      const proxyText = await proxied.text();
      const upstream = env.fake.requests.length;
      return {
        held:
          statuses.at(-1) === 413 &&
          /MAX_SESSION_BYTES/.test(refusal) &&
          proxied.status === 413 &&
          /MAX_SESSION_BYTES/.test(proxyText) &&
          upstream === 0,
        detail: `appends ${statuses.join(',')}; proxy ${proxied.status} with ${upstream} upstream call(s): ${proxyText.slice(0, 100)}`,
      };
    },
  },
  {
    name: 'every list and log pages',
    promise: 'the session log and the session lists answer a limit and a cursor to the next page',
    fast: true,
    async run(env) {
      const session = env.id('pages');
      await post(env, '/v1/sessions', { id: session });
      await post(env, `/v1/sessions/${session}/messages`, {
        messages: Array.from({ length: 5 }, (_, i) => ({
          role: 'user',
          parts: [{ type: 'text', text: `m${i}` }],
        })),
      });
      const seqs: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (; pages < 10; pages++) {
        const q = `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await fetch(`${env.service.base}/v1/sessions/${session}/messages?${q}`, {
          headers: env.headers(),
        });
        if (!res.ok) break;
        const body = (await res.json()) as { messages: Row[]; next?: string | null };
        seqs.push(...body.messages.map((m) => m.seq));
        if (!body.next) break;
        cursor = body.next;
      }
      const list = await fetch(`${env.service.base}/v1/sessions?limit=1`, { headers: env.headers() });
      const listBody = (await list.json()) as { sessions?: unknown[]; next?: string | null };
      return {
        held:
          seqs.join(',') === '1,2,3,4,5' &&
          pages === 2 &&
          list.status === 200 &&
          typeof listBody.next === 'string',
        detail: `log pages of 2: seqs ${seqs.join(',') || 'none'} over ${pages + 1} pages; /v1/sessions?limit=1: ${list.status}, next ${listBody.next ?? 'absent'}`,
      };
    },
  },
  {
    name: 'keyed append, kill -9 between its D1 write and its record',
    promise: 'an append retried with its Idempotency-Key after a crash at the worst instant is stored once',
    disruptive: true,
    testFaults: true,
    async run(env) {
      const session = env.id('idem');
      await post(env, '/v1/sessions', { id: session });
      const body = { messages: [{ role: 'user', parts: [{ type: 'text', text: 'only once' }] }] };
      const key = { 'idempotency-key': `k-${session}` };
      const held = post(env, `/v1/sessions/${session}/messages`, body, {
        ...key,
        'x-ctxkit-test-fault': 'append:after-d1-write',
      }).catch(() => undefined);
      const reached = await eventually(20_000, async () =>
        env.service.log().includes('ctxkit test fault: holding at append:after-d1-write') ? true : undefined,
      );
      env.service.kill();
      await held;
      await env.service.restart();
      const retry = await post(env, `/v1/sessions/${session}/messages`, body, key);
      const rows = await logRows(env, session);
      const copies = rows.filter((r) => r.message.parts[0]?.text === 'only once').length;
      return {
        held: reached === true && retry.status === 201 && copies === 1,
        detail: `fault point ${reached ? 'reached, killed there' : 'NOT reached'}; retry ${retry.status} (replayed: ${retry.headers.get('idempotent-replayed') ?? 'no'}); stored ${copies} time(s)`,
      };
    },
  },
  {
    name: 'kill -9 mid-burst',
    promise: 'kill -9 of the whole service loses no acknowledged turn',
    disruptive: true,
    async run(env) {
      env.fake.reset();
      const r = await killPhase({
        base: env.service.base,
        key: env.service.key,
        sessions: 3,
        calls: 40,
        killAt: 45,
        kill: () => env.service.kill(),
        restart: () => env.service.restart(),
      });
      return {
        held: r.wentDown && r.missing === 0 && r.acknowledged > 0,
        detail: `${r.acknowledged} acknowledged, ${r.stored} stored, ${r.missing} missing; ${r.interrupted} cut by the kill (load ${r.load.toFixed(1)})`,
      };
    },
  },
];
