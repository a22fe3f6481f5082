/**
 * The second audit of the service's edges (2026-11-28, an attacker's and a careless client's view):
 * a provider that answers a success without a body, a key that opens sessions without end, a context
 * whose session state passes what one D1 value holds in production.
 * docs/service.md ("Bounds") and docs/proxy.md
 * ("Faults") state each promise.
 */
import { eventually } from '../support/attack-http.ts';
import { tenant } from './security.ts';
import type { AttackCase, AttackEnv } from './types.ts';

const CALLS = [
  { name: 'chat', path: '/v1/proxy/openai/chat/completions', anthropic: false, responses: false },
  { name: 'responses', path: '/v1/proxy/openai/responses', anthropic: false, responses: true },
  { name: 'anthropic', path: '/v1/proxy/anthropic/v1/messages', anthropic: true, responses: false },
] as const;

function proxied(env: AttackEnv, call: (typeof CALLS)[number], stream: boolean): Promise<Response> {
  const history = [{ role: 'user', content: 'the plan' }];
  return fetch(env.service.base + call.path, {
    method: 'POST',
    headers: call.anthropic
      ? { 'content-type': 'application/json', 'x-api-key': env.service.key }
      : env.headers(env.id('bodiless')),
    body: JSON.stringify({
      model: call.anthropic ? 'claude-sonnet-4-5' : 'gpt-4o',
      ...(call.anthropic ? { max_tokens: 50 } : {}),
      ...(call.responses ? { input: history } : { messages: history }),
      stream,
    }),
  });
}

/** Messages of the state case: a state of some 2.1 MB (15 characters a message of the last send). */
const STATE_CASE_MESSAGES = 140_000;

export const cases: AttackCase[] = [
  {
    name: 'provider answering 204',
    promise:
      "a success without a body is no answer: the client gets a 502 in the provider's shape naming the upstream's status, streamed or not, on every protocol",
    fast: true,
    async run(env) {
      const seen: string[] = [];
      let held = true;
      for (const call of CALLS)
        for (const stream of [false, true]) {
          env.fake.reset();
          env.fake.script({ kind: 'status', status: 204 });
          const res = await proxied(env, call, stream);
          const text = await res.text();
          const named = /answered 204 with no body/.test(text);
          held &&= res.status === 502 && named;
          seen.push(`${call.name}${stream ? ' streamed' : ''}: ${res.status}${named ? ' naming 204' : ''}`);
        }
      return { held, detail: seen.join(', ') };
    },
  },
  {
    name: 'a key opening sessions without end',
    promise:
      'a tenant holds at most MAX_SESSIONS_PER_TENANT sessions (each a D1 row and a Durable Object): past it a 429 naming the bound, creates at once never pass it, existing sessions and other tenants unaffected',
    fast: true,
    async run(env) {
      const cap = 40;
      const t = await tenant(env, 'flood');
      const admin = { authorization: `Bearer ${env.adminToken}`, 'content-type': 'application/json' };
      await fetch(`${env.service.base}/v1/admin/tenants/${t.name}/limits`, {
        method: 'PUT',
        headers: admin,
        body: JSON.stringify({ sessions: cap }),
      });
      // 100 creates at once from one key, 60 of them past the cap; then a proxied call opening one more.
      const codes = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const res = await fetch(`${env.service.base}/v1/sessions`, {
            method: 'POST',
            headers: t.headers,
            body: JSON.stringify({ id: `flood-${i}` }),
          });
          const body = (await res.json()) as { error?: { code?: string; limit?: { name?: string } } };
          return res.status === 429 && body.error?.limit?.name === 'MAX_SESSIONS_PER_TENANT'
            ? 'named'
            : res.status;
        }),
      );
      env.fake.reset();
      const proxied = await fetch(`${env.service.base}/v1/proxy/openai/chat/completions`, {
        method: 'POST',
        headers: { ...t.headers, 'x-ctxkit-session': 'flood-by-proxy' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await proxied.text();
      const upstream = env.fake.requests.length;
      const created = codes.filter((c) => c === 201).length;
      const named = codes.filter((c) => c === 'named').length;
      const list = (await (
        await fetch(`${env.service.base}/v1/sessions?limit=500`, { headers: t.headers })
      ).json()) as { sessions: Array<{ id: string }> };
      const kept = await fetch(`${env.service.base}/v1/sessions/${list.sessions[0]?.id}/messages`, {
        method: 'POST',
        headers: t.headers,
        body: JSON.stringify({ messages: [{ role: 'user', parts: [{ type: 'text', text: 'still here' }] }] }),
      });
      const other = await fetch(`${env.service.base}/v1/sessions`, {
        method: 'POST',
        headers: env.headers(),
        body: JSON.stringify({ id: env.id('not-flooded') }),
      });
      return {
        held:
          created === cap &&
          named === 100 - cap &&
          list.sessions.length === cap &&
          proxied.status === 429 &&
          upstream === 0 &&
          kept.status === 201 &&
          other.status === 201,
        detail: `cap ${cap} for the run's tenant: 100 creates at once → ${created} × 201, ${named} × 429 naming MAX_SESSIONS_PER_TENANT; ${list.sessions.length} listed; a proxied call opening one more: ${proxied.status}, ${upstream} upstream calls; an existing session's append ${kept.status}; another tenant's create ${other.status}`,
      };
    },
  },
  {
    name: 'a context of 140,000 messages',
    promise:
      "a session whose state passes D1's 2 MB per value (a digest per message of the last send) keeps storing its turns and answers (local D1 refuses it as production does)",
    vars: { PROXY_MAX_MESSAGES: String(STATE_CASE_MESSAGES + 10) },
    async run(env) {
      const session = env.id('state');
      const history: Array<{ role: string; content: unknown }> = Array.from(
        { length: STATE_CASE_MESSAGES },
        (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: `m${i}`,
        }),
      );
      let resent = 0;
      // As an SDK does: a call whose connection was lost (a pooled connection the other side closed,
      // docs/service.md "Keep-alive") or that got the proxy's 502 "upstream unreachable" is sent again.
      const send = async (): Promise<Response | undefined> => {
        for (let attempt = 0; attempt < 3; attempt++) {
          const res = await fetch(`${env.service.base}/v1/proxy/openai/chat/completions`, {
            method: 'POST',
            headers: { ...env.headers(session), 'x-ctxkit-window': '1000000' },
            body: JSON.stringify({ model: 'gpt-4.1', messages: history }),
          }).catch(() => undefined);
          if (res && res.status !== 502) return res;
          await res?.text();
          resent++;
        }
        return undefined;
      };
      const turn = async () => {
        env.fake.reset();
        const t = performance.now();
        const res = await send();
        const body = res
          ? ((await res.json()) as { choices?: Array<{ message: { content: unknown } }> })
          : {};
        const answer = body.choices?.[0]?.message;
        if (answer) history.push({ role: 'assistant', content: answer.content });
        return {
          status: res?.status ?? 0,
          warning: res?.headers.get('x-ctxkit-warning') ?? null,
          ms: Math.round(performance.now() - t),
        };
      };
      const first = await turn();
      history.push({ role: 'user', content: 'and now?' });
      const second = await turn();
      // Both turns and both answers in the log: N + answer + user + answer.
      const want = STATE_CASE_MESSAGES + 3;
      const lastSeq = await eventually(30_000, async () => {
        // A reset of a pooled connection (docs/service.md, "Keep-alive") is tried again.
        const r = await fetch(`${env.service.base}/v1/sessions/${session}`, { headers: env.headers() }).catch(
          () => undefined,
        );
        if (!r) return undefined;
        const n = ((await r.json()) as { session?: { lastSeq?: number } }).session?.lastSeq;
        return n === want ? n : undefined;
      });
      return {
        held:
          first.status === 200 &&
          second.status === 200 &&
          !first.warning &&
          !second.warning &&
          lastSeq === want,
        detail: `${STATE_CASE_MESSAGES.toLocaleString('en')} messages: turn 1 ${first.status} in ${first.ms} ms${first.warning ? ` warning "${first.warning}"` : ''}, turn 2 ${second.status} in ${second.ms} ms${second.warning ? ` warning "${second.warning}"` : ''}; log at ${lastSeq ?? 'not'} ${lastSeq === undefined ? `${want}` : `of ${want}`}; resent ${resent} (a lost connection or the upstream's)`,
      };
    },
  },
];
