/**
 * `npm run bench:proxy`: what the drop-in proxy adds to a model call. A local fake provider
 * (127.0.0.1) answers OpenAI Chat Completions; the Worker runs in workerd (Miniflare) with the fake
 * as its upstream. For each of N sessions, a warm-up call brings in the first 198 messages of a real
 * Claude Code session (../shared/data/trajectories/claude-code, tool results up to 44 KB); then the
 * measured call sends the 200-message history (the 198, the logged answer, a new user message) —
 * once straight to the fake provider and once through the proxy, alternately — so the proxy appends
 * 1 message, prepares, forwards, relays and logs the answer (each measurement starts once the answers
 * logged after earlier replies are in, so none pays for another's logging). Reported: the added latency per call
 * (proxy − direct, paired) p50 / p99 / worst, the same for stateless calls (no session header), and
 * ctxkit's own `POST /prepare` on the same session for comparison (the pipeline's share), and the
 * floor of any proxy here: a second Worker in workerd that pipes the body upstream untouched, or parses
 * and re-serialises it, measured the same way (paired with its own direct call).
 *
 * The peer: when Portkey's open-source gateway (`@portkey-ai/gateway`, a pure proxy that does no context
 * work; optional, `npm i --no-save @portkey-ai/gateway`, or `--gateway <folder it is installed in>`) can be
 * found, it runs as its own Node server in front of the same fake provider and is measured in the same
 * loop, paired with its own direct call; the report gives ctxkit's added time as a ratio of the gateway's.
 * Without it, that arm is skipped with a message.
 *
 *   npm run bench:proxy -- --sessions 40 --window 200000 [--gateway DIR] [--profile worker.cpuprofile] [--before REF]
 *
 * `--before <git ref>` runs the Worker of that commit beside this tree's (same fake provider, its own
 * sessions), its session and stateless calls alternated with the others: a before/after in one run.
 *
 * Bounded: at most 500 sessions; only 127.0.0.1 is contacted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Miniflare } from 'miniflare';
import { startFakeProvider } from '../test/support/fake-provider-server.ts';
import { startWorker } from '../test/worker/support/harness.ts';
import { type CpuProfiler, startCpuProfile } from './support/cpu-profile.ts';
import { type Gateway, startGateway } from './support/portkey-gateway.ts';
import { bundleWorkerAt } from './support/worker-at-ref.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '40' },
    window: { type: 'string', default: '200000' },
    port: { type: 'string', default: '8815' },
    gateway: { type: 'string' },
    profile: { type: 'string' },
    before: { type: 'string' },
  },
});

function bounded(raw: string, name: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be an integer from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
}

const SESSIONS = bounded(values.sessions, 'sessions', 1, 500);
const WINDOW = bounded(values.window, 'window', 1024, 10_000_000);
const PORT = bounded(values.port, 'port', 1024, 65535);

const FILE = resolve(
  import.meta.dirname,
  '../../shared/data/trajectories/claude-code/258c7280-ae70-4798-800f-63464d01a85d.json',
);
if (!existsSync(FILE)) {
  console.error(
    `bench:proxy needs the real trajectory ${FILE} (../shared/data is absent); nothing measured.`,
  );
  process.exit(0);
}
type Raw = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string };
const history = (JSON.parse(readFileSync(FILE, 'utf8')) as { messages: Raw[] }).messages
  .slice(0, 198)
  .map((m) => ({
    role: m.role,
    content: m.content ?? null,
    ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  }));
if (history.length < 198) {
  console.error(`${FILE} has fewer than 198 messages`);
  process.exit(2);
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** `--before <ref>`: the Worker of an earlier commit beside this one, its calls alternated with the others. */
const beforeBuild = values.before
  ? await bundleWorkerAt(values.before).catch((err: Error) => {
      console.error(`bench:proxy: ${err.message}`);
      process.exit(2);
    })
  : undefined;
const fake = await startFakeProvider({ port: PORT });
const INSPECTOR = PORT + 1;
const w = await startWorker({
  bindings: { UPSTREAM_OPENAI_BASE_URL: fake.openaiBase, PROXY_TIMING: '1' },
  ...(values.profile ? { inspectorPort: INSPECTOR } : {}),
});
const key = await w.createKey('bench');
const wb = beforeBuild
  ? await startWorker({
      scriptPath: beforeBuild.scriptPath,
      bindings: { UPSTREAM_OPENAI_BASE_URL: fake.openaiBase, PROXY_TIMING: '1' },
    })
  : undefined;
const keyBefore = wb ? await wb.createKey('bench') : '';

/**
 * The floor of any proxy on this box: a Worker in the same runtime that adds nothing of its own.
 * `/pipe` streams the client's body upstream untouched; `/json` parses it and serialises it again (the
 * least a proxy that rewrites the messages must do). Both relay the answer as it comes.
 */
const FLOOR_WORKER = `export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    const body = path === '/json' ? JSON.stringify(await request.json()) : request.body;
    return fetch(env.UPSTREAM + '/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  },
};`;
const floor = new Miniflare({
  host: '127.0.0.1',
  modules: true,
  script: FLOOR_WORKER,
  compatibilityDate: '2025-09-01',
  bindings: { UPSTREAM: fake.openaiBase },
});
const floorUrl = await floor.ready;
const gateway: Gateway | undefined = await startGateway({ upstream: fake.openaiBase, from: values.gateway });
if (!gateway) {
  console.log(
    'bench:proxy: @portkey-ai/gateway is not installed (npm i --no-save @portkey-ai/gateway, or --gateway <folder>): the gateway arm is skipped',
  );
}
const answer = { role: 'assistant', content: 'ok' };

/** Per-phase timings (the `server-timing` header, `PROXY_TIMING=1`) of the measured proxy calls. */
const phases: Record<'session' | 'stateless', Map<string, number[]>> = {
  session: new Map(),
  stateless: new Map(),
};

async function timed(
  url: string,
  body: string,
  headers: Record<string, string>,
  kind?: 'session' | 'stateless',
): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`${url} → HTTP ${res.status}`);
  if (kind) {
    for (const part of (res.headers.get('server-timing') ?? '').split(',')) {
      const m = /^\s*([\w.-]+);dur=([\d.]+)\s*$/.exec(part);
      if (!m) continue;
      const list = phases[kind].get(m[1]!) ?? [];
      list.push(Number(m[2]));
      phases[kind].set(m[1]!, list);
    }
  }
  return ms;
}

const proxyUrl = new URL('/v1/proxy/openai/chat/completions', w.url).toString();
const directUrl = `${fake.openaiBase}/chat/completions`;
const auth = { authorization: `Bearer ${key}` };
const added: Record<'session' | 'stateless', number[]> = { session: [], stateless: [] };
/** The same arms on the `--before` Worker. */
const addedBefore: Record<'session' | 'stateless', number[]> = { session: [], stateless: [] };
/** Added by the floor Worker (same pairing with a direct call). */
const floors: Record<'pipe' | 'json', number[]> = { pipe: [], json: [] };
/** Added by the Portkey gateway (same pairing with a direct call). */
const gatewayAdded: number[] = [];
const direct: number[] = [];
/** ctxkit's own `POST /v1/sessions/:id/prepare` on the same session: the pipeline's share of the cost. */
const prepareRoute: number[] = [];
const bytes = JSON.stringify({
  model: 'gpt-4o',
  messages: [...history, answer, { role: 'user', content: 'go on' }],
}).length;
/**
 * Waits until the session log holds `n` rows: the answer is logged after the reply (waitUntil), in
 * the same isolate, so a call measured right after another would pay for the other's logging.
 */
async function settled(session: string, n: number, on = { url: w.url, key }): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const res = await fetch(new URL(`/v1/sessions/${session}/messages?after=${n - 1}`, on.url), {
      headers: { authorization: `Bearer ${on.key}` },
    });
    const body = (await res.json()) as { messages?: unknown[] };
    if ((body.messages?.length ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${session}: the answer was not logged within 2 s`);
}

/**
 * A session's first call (not measured). Retried once when workerd lost its pooled connection to the
 * fake provider (a 502 "Network connection lost", seen under heavy load); counted and reported.
 */
let warmUpRetries = 0;
async function warmUp(url: string, body: string, headers: Record<string, string>): Promise<void> {
  try {
    await timed(url, body, headers);
  } catch {
    warmUpRetries++;
    await timed(url, body, headers);
  }
}

/** `--profile <file>`: a CPU profile of the Worker (and its session objects) during the session calls. */
const profiler: CpuProfiler | undefined = values.profile ? await startCpuProfile(INSPECTOR) : undefined;
try {
  for (let s = 0; s < SESSIONS; s++) {
    const session = { ...auth, 'x-ctxkit-session': `bench-${s}`, 'x-ctxkit-window': String(WINDOW) };
    await warmUp(proxyUrl, JSON.stringify({ model: 'gpt-4o', messages: history }), session);
    await settled(`bench-${s}`, history.length + 1);
    const body = JSON.stringify({
      model: 'gpt-4o',
      messages: [...history, answer, { role: 'user', content: `go on (${s})` }],
    });
    const d1 = await timed(directUrl, body, {});
    await profiler?.begin();
    const p1 = await timed(proxyUrl, body, session, 'session');
    await profiler?.end();
    await settled(`bench-${s}`, history.length + 3);
    const d2 = await timed(directUrl, body, {});
    const p2 = await timed(proxyUrl, body, { ...auth, 'x-ctxkit-window': String(WINDOW) }, 'stateless');
    prepareRoute.push(
      await timed(new URL(`/v1/sessions/bench-${s}/prepare`, w.url).toString(), '{"dialect":"openai"}', auth),
    );
    const d3 = await timed(directUrl, body, {});
    const f1 = await timed(new URL('/pipe', floorUrl).toString(), body, {});
    const d4 = await timed(directUrl, body, {});
    const f2 = await timed(new URL('/json', floorUrl).toString(), body, {});
    direct.push(d1, d2, d3, d4);
    if (gateway) {
      const d5 = await timed(directUrl, body, {});
      const g1 = await timed(gateway.url, body, gateway.headers);
      direct.push(d5);
      gatewayAdded.push(g1 - d5);
    }
    if (wb) {
      const url = new URL('/v1/proxy/openai/chat/completions', wb.url).toString();
      const authB = { authorization: `Bearer ${keyBefore}` };
      const sessionB = { ...authB, 'x-ctxkit-session': `bench-${s}`, 'x-ctxkit-window': String(WINDOW) };
      const on = { url: wb.url, key: keyBefore };
      await warmUp(url, JSON.stringify({ model: 'gpt-4o', messages: history }), sessionB);
      await settled(`bench-${s}`, history.length + 1, on);
      const d6 = await timed(directUrl, body, {});
      const b1 = await timed(url, body, sessionB);
      await settled(`bench-${s}`, history.length + 3, on);
      const d7 = await timed(directUrl, body, {});
      const b2 = await timed(url, body, { ...authB, 'x-ctxkit-window': String(WINDOW) });
      direct.push(d6, d7);
      addedBefore.session.push(b1 - d6);
      addedBefore.stateless.push(b2 - d7);
    }
    added.session.push(p1 - d1);
    added.stateless.push(p2 - d2);
    floors.pipe.push(f1 - d3);
    floors.json.push(f2 - d4);
  }
  if (profiler && values.profile) {
    console.log(`CPU profile of the Worker → ${values.profile}; most self time:`);
    for (const f of profiler.report(values.profile))
      console.log(`  ${f.ms.toFixed(0).padStart(6)} ms ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.fn}`);
  }
} finally {
  await w.dispose();
  await wb?.dispose();
  beforeBuild?.dispose();
  await floor.dispose();
  await gateway?.close();
  await fake.close();
}

const row = (name: string, xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${name.padEnd(28)} p50 ${percentile(s, 50).toFixed(2).padStart(7)} ms   p99 ${percentile(s, 99)
    .toFixed(2)
    .padStart(7)} ms   worst ${s.at(-1)!.toFixed(2).padStart(7)} ms`;
};
const med = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
console.log(
  `bench:proxy — ${SESSIONS} sessions, 200-message history (${(bytes / 1024).toFixed(0)} KiB, real Claude Code session), window ${WINDOW}, workerd via Miniflare, fake provider on 127.0.0.1`,
);
console.log(row('direct call to the provider', direct));
console.log(row('added by the proxy, session', added.session));
console.log(row('added by the proxy, stateless', added.stateless));
if (beforeBuild) {
  console.log(row(`  the same at ${beforeBuild.commit}, session`, addedBefore.session));
  console.log(row(`  the same at ${beforeBuild.commit}, stateless`, addedBefore.stateless));
}
console.log(row('POST /prepare, same session', prepareRoute));
console.log(row('floor: a Worker piping the body', floors.pipe));
console.log(row('floor: a Worker re-serialising', floors.json));
if (gateway) console.log(row(`added by Portkey ${gateway.version}`, gatewayAdded));
console.log(
  `ctxkit above the re-serialising floor at p50: session ${(med(added.session) - med(floors.json)).toFixed(2)} ms, stateless ${(med(added.stateless) - med(floors.json)).toFixed(2)} ms`,
);
console.log(
  `ratio proxy / direct at p50: session ${((med(direct) + med(added.session)) / med(direct)).toFixed(2)}×, stateless ${((med(direct) + med(added.stateless)) / med(direct)).toFixed(2)}×`,
);

if (gateway) {
  const p99 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      99,
    );
  const ratio = (xs: number[]) =>
    `${(med(xs) / med(gatewayAdded)).toFixed(2)}× p50, ${(p99(xs) / p99(gatewayAdded)).toFixed(2)}× p99`;
  console.log(
    `added time / the gateway's (Node ${process.version}): session ${ratio(added.session)}; stateless ${ratio(added.stateless)}`,
  );
  if (beforeBuild)
    console.log(
      `  at ${beforeBuild.commit}: session ${ratio(addedBefore.session)}; stateless ${ratio(addedBefore.stateless)}`,
    );
}

for (const kind of ['session', 'stateless'] as const) {
  const cells = [...phases[kind]].map(([n, xs]) => `${n} ${med(xs).toFixed(1)}`);
  console.log(`phases p50 (ms), ${kind}: ${cells.join(' · ')}`);
}
if (warmUpRetries > 0)
  console.log(`warm-up calls retried after a lost upstream connection: ${warmUpRetries}`);
console.log(
  `load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
