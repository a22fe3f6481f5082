/**
 * The recall tools against someone who should not reach them, and a model that will not stop calling
 * them (issue 45): a tenant rereading another tenant's ref, over the route and through the proxy's tool
 * loop, and a scripted model that calls `recall` on every answer. docs/service.md ("Recall tools") and
 * docs/proxy.md ("The recall tools") state the promises; test/worker/session-recall and proxy-tools check
 * them in detail.
 */
import { rawChatAnswer } from '../../test/support/raw-chat-answer.ts';
import { json, tenant } from './security.ts';
import type { AttackCase, AttackEnv } from './types.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const SECRET = 'VAULT-CODE-7731-ALPHA';
/** The bound the loop case runs under (`PROXY_TOOL_ROUNDS`). */
const ROUNDS = 3;

/** A history long enough that its first tool output, holding `fact`, leaves a 16K context. */
function history(fact: string, question: string): unknown[] {
  const out: unknown[] = [];
  for (let t = 0; t < 40; t++) {
    const lines = Array.from({ length: 60 }, (_, i) => `src/m${t}/f.ts:${i + 1}: export const v${i} = ${t};`);
    if (t === 0) lines.unshift(fact);
    out.push(
      { role: 'user', content: `Step ${t}: read src/m${t}/f.ts.` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: `c${t}`, content: lines.join('\n') },
      { role: 'assistant', content: `Read module ${t}.` },
    );
  }
  return [...out, { role: 'user', content: question }];
}

function proxied(env: AttackEnv, headers: Record<string, string>, session: string, messages: unknown[]) {
  return fetch(env.service.base + OPENAI, {
    method: 'POST',
    headers: {
      ...headers,
      'x-ctxkit-session': session,
      'x-ctxkit-window': '16384',
      'x-ctxkit-tools': 'on',
    },
    body: JSON.stringify({ model: 'gpt-4o', messages }),
  });
}

export const cases: AttackCase[] = [
  {
    name: 'reread of another tenant’s ref',
    promise:
      'a ref resolves only in the session that archived it: another tenant gets a 404 from the route and "unknown ref" from the proxy, never the original',
    fast: true,
    async run(env) {
      const owner = await tenant(env, 'recall-owner');
      const thief = await tenant(env, 'recall-thief');
      const session = env.id('vault');
      env.fake.reset();
      env.fake.script({ kind: 'answer', text: 'ok' });
      await (
        await proxied(env, owner.headers, session, history(`The vault code is ${SECRET}.`, 'Go on.'))
      ).text();
      const found = await json(
        await fetch(`${env.service.base}/v1/sessions/${session}/recall`, {
          method: 'POST',
          headers: owner.headers,
          body: JSON.stringify({ query: 'vault code' }),
        }),
      );
      const ref = found?.hits?.[0]?.ref as string | undefined;
      if (!ref) return { held: false, detail: 'the owner found no archived ref to steal (setup failed)' };
      // The thief's own session of the same id, then the ref over the route and through the proxy.
      env.fake.script({ kind: 'answer', text: 'ok' });
      await (await proxied(env, thief.headers, session, history('Nothing here.', 'Go on.'))).text();
      const route = await fetch(`${env.service.base}/v1/sessions/${session}/reread`, {
        method: 'POST',
        headers: thief.headers,
        body: JSON.stringify({ ref }),
      });
      const routeText = await route.text();
      env.fake.reset();
      env.fake.script(
        { kind: 'answer', toolCalls: [{ id: 'steal', name: 'reread', args: { ref } }] },
        { kind: 'answer', text: 'done' },
      );
      const loop = await proxied(env, thief.headers, session, history('Nothing here.', 'Reread it.'));
      await loop.text();
      const upstream = JSON.stringify(env.fake.requests.at(-1)?.body ?? {});
      const leaked = routeText.includes(SECRET) || upstream.includes(SECRET);
      const unknown = upstream.includes('Unknown ref');
      return {
        held: route.status === 404 && !leaked && unknown,
        detail: `route ${route.status}; proxy tool result ${unknown ? '"unknown ref"' : 'other'}; secret ${leaked ? 'LEAKED' : 'not seen'}`,
      };
    },
  },
  {
    name: 'model looping on the recall tools',
    promise: `a model that calls the tools on every answer is stopped after PROXY_TOOL_ROUNDS (${ROUNDS}) rounds with the provider's own error, and the upstream is called at most that many times more`,
    fast: true,
    vars: { PROXY_TOOL_ROUNDS: String(ROUNDS) },
    async run(env) {
      const loop = {
        kind: 'answer' as const,
        toolCalls: [{ id: 'l', name: 'recall', args: { query: 'more' } }],
      };
      env.fake.reset();
      env.fake.script(...Array.from({ length: 20 }, () => loop));
      const started = performance.now();
      const res = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: { ...env.headers(env.id('loop')), 'x-ctxkit-tools': 'on' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Find everything.' }] }),
      });
      const body = await json(res);
      const ms = Math.round(performance.now() - started);
      const calls = env.fake.requests.length;
      const shaped =
        typeof body?.error?.message === 'string' && body.error.message.includes('PROXY_TOOL_ROUNDS');
      const lastNone = env.fake.requests.at(-1)?.body?.tool_choice === 'none';
      return {
        held: res.status === 502 && shaped && calls === ROUNDS + 1 && lastNone,
        detail: `${res.status} after ${calls} upstream calls in ${ms} ms (bound ${ROUNDS + 1}); last round tool_choice ${lastNone ? 'none' : 'not none'}`,
      };
    },
  },
  {
    name: 'absurd usage from the provider',
    promise:
      'what the upstream reports is checked before it is counted: a tool round or an answer with negative, fractional or absurd token counts never reaches GET /v1/usage or x-ctxkit-tool-usage; the valid rounds do',
    fast: true,
    async run(env) {
      const usageNow = async () =>
        ((await json(await fetch(`${env.service.base}/v1/usage`, { headers: env.headers() })))?.tokens ??
          {}) as Record<string, number>;
      const before = await usageNow();
      env.fake.reset();
      env.fake.script(
        rawChatAnswer('a1', { prompt_tokens: -5, completion_tokens: 3 }),
        rawChatAnswer('a2', { prompt_tokens: 100, completion_tokens: 5, total_tokens: -1 }),
        rawChatAnswer('a3', { prompt_tokens: 1e15, completion_tokens: 0.5 }, { callsRecall: false }),
      );
      const res = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: { ...env.headers(env.id('absurd')), 'x-ctxkit-tools': 'on' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Count this.' }] }),
      });
      await res.arrayBuffer();
      const header = res.headers.get('x-ctxkit-tool-usage');
      let after = before;
      for (let i = 0; i < 100 && (after.calls ?? 0) <= (before.calls ?? 0); i++) {
        await new Promise((r) => setTimeout(r, 50));
        after = await usageNow();
      }
      const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
      const finite = Object.values(after).every((v) => Number.isFinite(v) && v >= 0);
      const held =
        res.status === 200 &&
        header === 'input=100, output=5, cache_read=0, cache_write=0' &&
        delta('input') === 100 &&
        delta('calls') === 1 &&
        delta('output') === 5 &&
        delta('cacheRead') === 0 &&
        finite;
      return {
        held,
        detail: `${res.status}; x-ctxkit-tool-usage ${header}; /v1/usage +${delta('calls')} call, +${delta('input')} input, +${delta('output')} output, +${delta('cacheRead')} cache read; all counts finite and ≥ 0: ${finite}`,
      };
    },
  },
];
