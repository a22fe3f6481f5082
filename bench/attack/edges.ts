/**
 * The second audit of the service's edges (2026-11-28, an attacker's and a careless client's view):
 * a provider that answers a success without a body. docs/service.md ("Bounds") and docs/proxy.md
 * ("Faults") state each promise.
 */
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
];
