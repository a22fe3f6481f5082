/**
 * `npm run bench:limits`: what the tenant limits (calls in flight, stored bytes: one RPC to the
 * tenant's Durable Object before each proxied call, one after it) add to a proxied call. Two copies
 * of the Worker in workerd (Miniflare), one with the `TENANTS` binding and one without, each in
 * front of the same local fake provider; calls alternate between them, with a session and without,
 * and the difference of the medians is printed with the load average.
 *
 *   npm run bench:limits -- [--calls 200]
 *
 * 127.0.0.1 only; bounded (at most 2,000 calls per kind).
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startFakeProvider } from '../test/support/fake-provider-server.ts';
import { type RunningWorker, startWorker } from '../test/worker/support/harness.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200' } } });
const CALLS = Number(values.calls);
if (!Number.isInteger(CALLS) || CALLS < 10 || CALLS > 2000) {
  console.error('bench:limits: --calls must be an integer from 10 to 2000');
  process.exit(2);
}

const fake = await startFakeProvider({ port: 0 });
const bindings = {
  UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
  UPSTREAM_OPENAI_API_KEY: 'sk-bench-0123456789',
};
const on = await startWorker({ bindings });
const off = await startWorker({ bindings, tenantLimits: false });
const keys = new Map<RunningWorker, string>([
  [on, await on.createKey('bench')],
  [off, await off.createKey('bench')],
]);

async function call(w: RunningWorker, session: string | undefined, i: number): Promise<number> {
  const t0 = performance.now();
  const res = await w.request('/v1/proxy/openai/chat/completions', {
    method: 'POST',
    key: keys.get(w)!,
    headers: session ? { 'x-ctxkit-session': session } : {},
    json: { model: 'gpt-4o', messages: [{ role: 'user', content: `call ${i}` }] },
  });
  await res.text();
  if (res.status !== 200) throw new Error(`bench:limits: a call answered ${res.status}`);
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1]!;

try {
  const load = loadavg()[0]!;
  console.log(`bench:limits: ${CALLS} calls per kind and Worker, alternating; load ${load.toFixed(1)}`);
  console.log('| call | without TENANTS p50 / p99 ms | with TENANTS p50 / p99 ms | added p50 ms |');
  console.log('|---|---|---|---:|');
  for (const kind of ['stateless', 'session'] as const) {
    const times = new Map<RunningWorker, number[]>([
      [on, []],
      [off, []],
    ]);
    for (let i = 0; i < 10; i++)
      for (const w of [on, off]) await call(w, kind === 'session' ? 'warm' : undefined, i);
    for (let i = 0; i < CALLS; i++)
      for (const w of i % 2 ? [on, off] : [off, on])
        times.get(w)!.push(await call(w, kind === 'session' ? `s${i % 8}` : undefined, i));
    const a = times.get(off)!;
    const b = times.get(on)!;
    console.log(
      `| ${kind} | ${median(a).toFixed(1)} / ${p99(a).toFixed(1)} | ${median(b).toFixed(1)} / ${p99(b).toFixed(1)} | ${(median(b) - median(a)).toFixed(1)} |`,
    );
  }
} finally {
  await on.dispose();
  await off.dispose();
  await fake.close();
}
