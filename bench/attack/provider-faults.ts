/** Cases that held before the attack suite existed (bench:faults measures them in more detail). */
import type { AttackCase } from './types.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';

export const cases: AttackCase[] = [
  {
    name: 'hung provider',
    promise: 'a provider that never answers is a 504 in its own error shape at the first-byte timeout',
    fast: true,
    async run(env) {
      env.fake.reset();
      env.fake.script({ kind: 'hang' });
      const started = performance.now();
      const res = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: { ...env.headers(env.id('hang')), 'x-ctxkit-first-byte-timeout-ms': '1000' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      const ms = performance.now() - started;
      return {
        held: res.status === 504 && typeof body?.error?.message === 'string' && ms < 5000,
        detail: `${res.status} in ${ms.toFixed(0)} ms: ${body?.error?.message ?? 'no error body'}`,
      };
    },
  },
  {
    name: 'broken stream',
    promise: "a stream the provider cuts ends with the provider's error event, never a clean close",
    fast: true,
    async run(env) {
      env.fake.reset();
      const chunk = (t: string) =>
        `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: t } }] })}\n\n`;
      env.fake.script({ kind: 'events', events: [chunk('a'), chunk('b')] });
      const res = await fetch(env.service.base + OPENAI, {
        method: 'POST',
        headers: env.headers(env.id('cut')),
        body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await res.text();
      const lastEvent = text.trimEnd().split('\n\n').at(-1) ?? '';
      const errorEvent = /"error"/.test(lastEvent) && !text.includes('[DONE]');
      return { held: res.status === 200 && errorEvent, detail: `last event: ${lastEvent.slice(0, 120)}` };
    },
  },
];
