/**
 * What crosses the service's edges (the audit of 2026-11-28): an upstream that redirects, a request
 * body whose chunked framing is broken, a history of a million tiny messages, and a run whose journal
 * or answer is larger than one Durable Object value (2 MB). docs/service.md ("Security", "Bounds", "Idempotency-Key") states each promise.
 */
import { connect } from 'node:net';
import { eventually } from '../support/attack-http.ts';
import type { AttackCase, AttackEnv } from './types.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';

const post = (env: AttackEnv, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(env.service.base + path, {
    method: 'POST',
    headers: { ...env.headers(), ...headers },
    body: JSON.stringify(body),
  });

/** One request written by hand on its own connection; the status line and the body of the answer. */
function raw(env: AttackEnv, head: string, body: string): Promise<{ status: string; body: string }> {
  const { hostname, port } = new URL(env.service.base);
  return new Promise((resolve, reject) => {
    let got = '';
    const socket = connect(Number(port), hostname, () => socket.end(`${head}\r\n\r\n${body}`));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (d) => {
      got += d.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const at = got.indexOf('\r\n\r\n');
      resolve({ status: got.split('\r\n')[0] ?? '', body: at < 0 ? '' : got.slice(at + 4) });
    });
  });
}

export const cases: AttackCase[] = [
  {
    name: 'redirecting upstream',
    promise:
      'an upstream that answers 3xx is not followed: the conversation and the provider key go nowhere else, the client gets a 502',
    fast: true,
    async run(env) {
      // The fake under another origin: where a followed redirect would send the body and the key.
      const elsewhere = env.fake.origin.replace('127.0.0.1', 'localhost');
      const tries: Array<[string, string, number]> = [
        ['anthropic 307', ANTHROPIC, 307],
        ['openai 308', OPENAI, 308],
        ['openai 302', OPENAI, 302],
      ];
      const seen: string[] = [];
      let followed = 0;
      for (const [name, path, status] of tries) {
        env.fake.reset();
        const target = `${elsewhere}${path === ANTHROPIC ? '/v1/messages' : '/v1/chat/completions'}`;
        env.fake.script({ kind: 'status', status, headers: { location: target } });
        const anthropic = path === ANTHROPIC;
        const res = await fetch(env.service.base + path, {
          method: 'POST',
          headers: anthropic
            ? { 'content-type': 'application/json', 'x-api-key': env.service.key }
            : env.headers(env.id('redirect')),
          body: JSON.stringify({
            model: anthropic ? 'claude-sonnet-4-5' : 'gpt-4o',
            ...(anthropic ? { max_tokens: 50 } : {}),
            messages: [{ role: 'user', content: 'the plan' }],
          }),
        });
        await res.text();
        followed += env.fake.requests.filter((r) => r.headers.host !== new URL(env.fake.origin).host).length;
        seen.push(`${name}: ${res.status}${res.headers.get('location') ? ' with location' : ''}`);
      }
      return {
        held: followed === 0 && seen.every((s) => s.endsWith(': 502')),
        detail: `${seen.join(', ')}; requests sent to the redirect's origin: ${followed}`,
      };
    },
  },
  {
    name: 'chunked body sent unframed',
    promise:
      "a body whose chunked framing the runtime cannot parse is the client's bad input: a 400 JSON naming the body, never a 500",
    fast: true,
    async run(env) {
      const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      const lines = (path: string) =>
        [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          `Authorization: Bearer ${env.service.key}`,
          'Content-Type: application/json',
          'Transfer-Encoding: chunked',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
        ].join('\r\n');
      const seen: string[] = [];
      let named = 0;
      for (const path of [OPENAI, '/v1/sessions']) {
        const r = await raw(env, lines(path), body);
        seen.push(`${path}: ${r.status.replace('HTTP/1.1 ', '')}`);
        if (/"path":"body"/.test(r.body)) named++;
      }
      const health = await fetch(`${env.service.base}/health`);
      return {
        held: seen.every((s) => s.endsWith('400 Bad Request')) && named === 2 && health.ok,
        detail: `${seen.join(', ')}; ${named} of 2 name the body; /health ${health.status}`,
      };
    },
  },
  {
    name: 'a million tiny messages',
    promise:
      'a proxied history longer than PROXY_MAX_MESSAGES (100,000) is a 413 naming it before anything converts, stores or sends it, however small each message: the service stays responsive',
    async run(env) {
      // 31 bytes a message: a million of them fit the proxy's 32 MiB body limit.
      const body = `{"model":"gpt-4o","messages":[${Array(1_000_000).fill('{"role":"user","content":"a"}').join(',')}]}`;
      env.fake.reset();
      const started = performance.now();
      const res = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: env.headers(env.id('million')),
        body,
      });
      const text = await res.text();
      const ms = performance.now() - started;
      const named = /PROXY_MAX_MESSAGES/.test(text) && /"path":"messages"/.test(text);
      const health = await fetch(`${env.service.base}/health`);
      return {
        held: res.status === 413 && named && env.fake.requests.length === 0 && ms < 10_000 && health.ok,
        detail: `${(body.length / 1e6).toFixed(1)} MB body: ${res.status}${named ? ' naming PROXY_MAX_MESSAGES' : ''} in ${ms.toFixed(0)} ms, ${env.fake.requests.length} upstream calls; /health ${health.status}`,
      };
    },
  },
  {
    name: 'compaction of 9,000 messages in one turn',
    promise:
      "a turn whose compaction journals every one of 9,000 messages is stored and recorded: no warning, its answer logged, its journal cut at the record's bound; a keyed /compact of 9,000 answers 200 and its retry is replayed",
    async run(env) {
      const session = env.id('many');
      const turns = Array.from({ length: 9_000 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: `turn ${i}`,
      }));
      env.fake.reset();
      const res = await post(
        env,
        OPENAI,
        { model: 'gpt-4o', messages: turns },
        {
          'x-ctxkit-session': session,
          'x-ctxkit-window': '1024',
        },
      );
      await res.text();
      const warning = res.headers.get('x-ctxkit-warning');
      const link = res.headers.get('x-ctxkit-journal') ?? '';
      const logged = async () => {
        const res = await fetch(`${env.service.base}/v1/sessions/${session}/stats`, {
          headers: env.headers(),
        });
        return ((await res.json()) as { log?: { messages: number } }).log?.messages ?? 0;
      };
      const rows =
        (await eventually(5_000, async () => ((await logged()) === 9_001 ? 9_001 : undefined))) ??
        (await logged());
      const call = (await (await fetch(env.service.base + link, { headers: env.headers() })).json()) as {
        call?: { journal: unknown[]; journalCut?: { entries: number } };
      };
      // The routes: 18 appends of 500, then a manual compaction over them.
      const routes = env.id('many-routes');
      await post(env, '/v1/sessions', { id: routes, budget: { contextWindow: 2000 } });
      for (let at = 0; at < 9_000; at += 500)
        await post(env, `/v1/sessions/${routes}/messages`, {
          messages: turns
            .slice(at, at + 500)
            .map((m) => ({ role: m.role, parts: [{ type: 'text', text: m.content }] })),
        });
      // Keyed, then retried: the stored answer (over 2 MB) is replayed, nothing compacted twice.
      const keyed = { 'idempotency-key': `${routes}-compact` };
      const compact = await post(env, `/v1/sessions/${routes}/compact`, {}, keyed);
      const first = await compact.text();
      const retry = await post(env, `/v1/sessions/${routes}/compact`, {}, keyed);
      const replayed = retry.headers.get('idempotent-replayed') === 'true' && (await retry.text()) === first;
      const compacted =
        compact.status === 200 ? (JSON.parse(first) as { journal: unknown[] }).journal.length : 0;
      const kept = call.call?.journal.length ?? 0;
      const cut = call.call?.journalCut?.entries ?? 0;
      return {
        held:
          res.status === 200 &&
          warning === null &&
          rows === 9_001 &&
          cut > 0 &&
          compact.status === 200 &&
          retry.status === 200 &&
          replayed,
        detail: `proxied: ${res.status}, warning ${warning === null ? 'none' : `"${warning}"`}, ${rows} rows logged, record journal ${kept} kept + ${cut} cut; keyed /compact ${compact.status} (${compacted} journal entries, ${(first.length / 1e6).toFixed(1)} MB), its retry ${retry.status}${replayed ? ' replayed' : ' not replayed'}`,
      };
    },
  },
];
