/**
 * `npm run bench:service`: the edge service as `npm start` runs it, under concurrent load from this
 * machine (127.0.0.1 only). Starts `node scripts/start.mjs --port P --persist-to <fresh temp dir>`
 * (its own process group), waits for `/health`, then measures:
 *
 * - 100 concurrent `POST /v1/sessions`;
 * - 100 concurrent appends to one session;
 * - 50 sessions × 5 rounds of append + prepare (sessions concurrent, rounds in order);
 * - `/health` and a `prepare` polled while the daily cron (`55 23 * * *`, through
 *   `POST /v1/admin/cron` with the operator's token) runs over 1,000 sessions active today.
 *
 * For each: answers that are not 2xx, answers that are not JSON (goal 0 for both), p50/p99/worst
 * latency. Every write carries an Idempotency-Key and is sent again after a connection reset (see
 * `call`); the number of such retries is reported, and the 100 appends must be stored exactly once.
 * Then stops the service (SIGTERM) and checks that nothing is left on the port.
 *
 *   npm run bench:service -- --port 8801 [--cron-sessions 1000] [--keep-alive-ms 2000] [--wrangler]
 *
 * Also: `/health` polled with no cron running (the control), connection resets per phase, the slowest
 * `/health` samples with their time after the cron's trigger, and the cron's own logged report.
 *
 * `--wrangler` runs `npm start -- --wrangler` (`wrangler dev` behind its dev proxy, the way
 * `npm start` worked before) for comparison. Bounded: at most 5,000 cron sessions, 100 in flight.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';

const ROOT = resolve(import.meta.dirname, '..');

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8801' },
    'cron-sessions': { type: 'string', default: '1000' },
    wrangler: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'keep-alive-ms': { type: 'string', default: '2000' },
  },
});

function bounded(raw: string, name: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`bench:service: --${name} must be an integer from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
}

const PORT = bounded(values.port, 'port', 1024, 65535);
const CRON_SESSIONS = bounded(values['cron-sessions'], 'cron-sessions', 1, 5000);
const BASE = `http://127.0.0.1:${PORT}`;
/** The operator's token for this run (`--var ADMIN_TOKEN:…`): the cron runs through `/v1/admin/cron`. */
const ADMIN_TOKEN = `bench-${randomBytes(16).toString('hex')}`;
/**
 * The client's keep-alive idle timeout. workerd closes a connection idle for 5 s without announcing
 * it (no `Keep-Alive: timeout=` header), so a pool that keeps idle connections longer — or as long as
 * 4 s, undici's default, when timers fire late on a loaded machine — may reuse one just as workerd
 * closes it.
 */
const KEEP_ALIVE_MS = bounded(values['keep-alive-ms'], 'keep-alive-ms', 100, 60_000);
const dispatcher = new Agent({ keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });

interface Sample {
  status: number;
  json: boolean;
  ms: number;
  body: string;
}

/** Connection resets retried (a request with an Idempotency-Key is safe to send again). */
let retries = 0;

async function once(
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  idem?: string,
): Promise<Sample> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idem) headers['idempotency-key'] = idem;
  const started = performance.now();
  try {
    const res = await fetch(BASE + path, {
      method,
      headers,
      dispatcher,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
    return { status: res.status, json, ms, body: text };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause ? ` (${cause.code ?? cause.message})` : '';
    return { status: 0, json: false, ms: performance.now() - started, body: `${String(error)}${why}` };
  }
}

/**
 * One request. GETs, and writes that carry an Idempotency-Key, are sent again (at most 3 times) when
 * the connection fails before an answer: workerd closes a keep-alive connection idle for 5 s, and a
 * client that reuses it at that moment gets a reset for a request the Worker never saw. The latency
 * counts from the first attempt.
 */
async function call(
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  idem?: string,
): Promise<Sample> {
  const started = performance.now();
  let sample = await once(method, path, key, body, idem);
  for (let attempt = 1; sample.status === 0 && attempt <= 3 && (method === 'GET' || idem); attempt++) {
    retries++;
    sample = await once(method, path, key, body, idem);
  }
  return { ...sample, ms: performance.now() - started };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

interface Row {
  phase: string;
  requests: number;
  non2xx: number;
  nonJson: number;
  p50: number;
  p99: number;
  worst: number;
  /** First few failures, `status content`. */
  failures: string[];
  /** Connection resets retried since the previous row. */
  resets: number;
}

let retriesCounted = 0;

function row(phase: string, samples: Sample[]): Row {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const bad = samples.filter((s) => s.status < 200 || s.status > 299 || !s.json);
  const before = retriesCounted;
  retriesCounted = retries;
  return {
    phase,
    requests: samples.length,
    non2xx: samples.filter((s) => s.status < 200 || s.status > 299).length,
    nonJson: samples.filter((s) => !s.json).length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    worst: sorted.at(-1) ?? Number.NaN,
    failures: [...new Set(bad.map((s) => `${s.status} ${s.body.slice(0, 90).replace(/\s+/g, ' ')}`))].slice(
      0,
      3,
    ),
    resets: retries - before,
  };
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return out;
}

const text = (t: string) => [{ type: 'text', text: t }];
const turn = (i: number, r: number) => [
  { role: 'user', parts: text(`Round ${r} of session ${i}: what does the build log say about step ${r}?`) },
  { role: 'assistant', parts: text(`Step ${r} compiled with 2 warnings; the tests of module ${i} passed.`) },
];

async function waitForHealth(child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with ${child.exitCode} before it was ready`);
    const s = await call('GET', '/health', undefined);
    if (s.status === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the service did not answer /health within ${timeoutMs} ms`);
}

async function portClosed(): Promise<boolean> {
  const s = await call('GET', '/health', undefined);
  return s.status === 0;
}

async function main(): Promise<void> {
  const persist = mkdtempSync(join(tmpdir(), 'ctxkit-bench-service-'));
  const args = [
    'scripts/start.mjs',
    '--port',
    String(PORT),
    '--persist-to',
    persist,
    '--var',
    `ADMIN_TOKEN:${ADMIN_TOKEN}`,
  ];
  if (values.wrangler) args.push('--wrangler');
  if (!(await portClosed())) {
    console.error(`bench:service: something already answers on ${BASE}; choose another --port`);
    process.exit(2);
  }
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const stop = async (): Promise<number> => {
    const started = performance.now();
    if (child.exitCode === null) child.kill('SIGTERM');
    while (child.exitCode === null && child.signalCode === null && performance.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    while (!(await portClosed()) && performance.now() - started < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    const ms = performance.now() - started;
    try {
      process.kill(-child.pid!, 'SIGKILL'); // anything left in the group (should be nothing)
    } catch {}
    return ms;
  };
  const rows: Row[] = [];
  try {
    await waitForHealth(child, 120_000);
    const key = readFileSync(join(ROOT, '.wrangler', 'ctxkit-dev-key'), 'utf8').trim();

    // 1. 100 concurrent creates.
    const run = Date.now().toString(36);
    const creates = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call('POST', '/v1/sessions', key, {}, `${run}-create-${i}`)),
    );
    rows.push(row('100 concurrent creates', creates));

    // 2. 100 concurrent appends to one session.
    const one = await call('POST', '/v1/sessions', key, { id: 'bench-one' });
    if (one.status !== 201) throw new Error(`could not create the session: ${one.status} ${one.body}`);
    const appends = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(
          'POST',
          '/v1/sessions/bench-one/messages',
          key,
          { messages: turn(i, 0).slice(0, 1) },
          `${run}-a-${i}`,
        ),
      ),
    );
    rows.push(row('100 concurrent appends, one session', appends));
    // Stored exactly once each, retries included.
    const stored = JSON.parse((await call('GET', '/v1/sessions/bench-one/messages', key)).body) as {
      messages: unknown[];
    };
    const storedAppends = stored.messages.length;

    // 3. 50 sessions × 5 rounds of append + prepare.
    const roundAppends: Sample[] = [];
    const prepares: Sample[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const id = `bench-s${i}`;
        const created = await call('POST', '/v1/sessions', key, { id });
        if (created.status !== 201) {
          roundAppends.push(created);
          return;
        }
        for (let r = 0; r < 5; r++) {
          roundAppends.push(
            await call(
              'POST',
              `/v1/sessions/${id}/messages`,
              key,
              { messages: turn(i, r) },
              `${run}-${id}-${r}`,
            ),
          );
          prepares.push(await call('POST', `/v1/sessions/${id}/prepare`, key, { dialect: 'openai' }));
        }
      }),
    );
    rows.push(row('50 sessions × 5 rounds: append', roundAppends));
    rows.push(row('50 sessions × 5 rounds: prepare', prepares));

    // 4. The daily cron over CRON_SESSIONS sessions active today, with /health and a prepare polled.
    const setupStarted = performance.now();
    const setup = await pool(CRON_SESSIONS, 20, async (i) => {
      const id = `bench-cron-${i}`;
      const c = await call('POST', '/v1/sessions', key, { id }, `${run}-c-${id}`);
      if (c.status !== 201) return c;
      return call('POST', `/v1/sessions/${id}/messages`, key, { messages: turn(i, 0) }, `${run}-m-${id}`);
    });
    const setupBad = setup.filter((s) => s.status !== 201).length;
    if (setupBad > 0)
      console.error(`bench:service: ${setupBad} of ${CRON_SESSIONS} cron sessions failed to set up`);
    const setupMs = performance.now() - setupStarted;
    rows.push(row(`set-up of the ${CRON_SESSIONS} cron sessions (create, append)`, setup));

    // Control: /health polled the same way with no cron running (what the machine's load alone costs).
    const idle: Sample[] = [];
    for (let i = 0; i < 200; i++) {
      idle.push(await call('GET', '/health', undefined));
      await new Promise((r) => setTimeout(r, 10));
    }
    rows.push(row('/health, no cron (control)', idle));

    const health: Sample[] = [];
    /** Start of each /health sample, ms after the cron was triggered. */
    const healthAt: number[] = [];
    const duringPrepare: Sample[] = [];
    let cronDone = false;
    const cronStarted = performance.now();
    // The operator's cron route (npm start serves no trigger URL without credentials).
    const cron = call('POST', '/v1/admin/cron', ADMIN_TOKEN, { cron: '55 23 * * *' }).then((s) => {
      cronDone = true;
      return s;
    });
    const pollers = [
      (async () => {
        while (!cronDone) {
          healthAt.push(performance.now() - cronStarted);
          health.push(await call('GET', '/health', undefined));
          await new Promise((r) => setTimeout(r, 10));
        }
      })(),
      (async () => {
        while (!cronDone) {
          duringPrepare.push(await call('POST', '/v1/sessions/bench-s0/prepare', key, {}));
          await new Promise((r) => setTimeout(r, 25));
        }
      })(),
    ];
    const cronAnswer = await cron;
    const cronMs = performance.now() - cronStarted;
    await Promise.all(pollers);
    rows.push(row(`/health during the daily cron (${CRON_SESSIONS} sessions)`, health));
    rows.push(row('prepare during the daily cron', duringPrepare));
    const slowest = health
      .map((h, i) => ({ at: Math.round(healthAt[i]!), ms: Math.round(h.ms) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5);
    // The cron's own report (phase times), as the Worker logs it.
    await new Promise((r) => setTimeout(r, 200));
    const logged = /ctxkit daily summaries (\{.*\})/.exec(log)?.[1];

    const stopMs = await stop();
    const report = {
      service: values.wrangler
        ? 'npm start -- --wrangler (wrangler dev + dev proxy)'
        : 'npm start (Miniflare)',
      rows,
      cron: {
        status: cronAnswer.status,
        ms: Math.round(cronMs),
        setupMs: Math.round(setupMs),
        report: logged ? (JSON.parse(logged) as Record<string, number>) : null,
        slowestHealth: slowest,
      },
      keepAliveMs: KEEP_ALIVE_MS,
      stopMs: Math.round(stopMs),
      retries,
      storedAppends,
    };
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else print(report);
  } catch (error) {
    console.error(`bench:service: ${(error as Error).message}`);
    console.error(log.slice(-2000));
    await stop();
    process.exitCode = 1;
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
}

function print(report: {
  service: string;
  rows: Row[];
  cron: {
    status: number;
    ms: number;
    setupMs: number;
    report: Record<string, number> | null;
    slowestHealth: { at: number; ms: number }[];
  };
  keepAliveMs: number;
  stopMs: number;
  retries: number;
  storedAppends: number;
}): void {
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '–');
  console.log(`bench:service — ${report.service}, 127.0.0.1:${PORT}\n`);
  console.log(
    `${'phase'.padEnd(48)} ${'n'.padStart(5)} ${'non-2xx'.padStart(8)} ${'non-JSON'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'worst'.padStart(8)} ${'resets'.padStart(7)}`,
  );
  for (const r of report.rows) {
    console.log(
      `${r.phase.padEnd(48)} ${String(r.requests).padStart(5)} ${String(r.non2xx).padStart(8)} ${String(r.nonJson).padStart(9)} ${f(r.p50).padStart(8)} ${f(r.p99).padStart(8)} ${f(r.worst).padStart(8)} ${String(r.resets).padStart(7)}`,
    );
    for (const failure of r.failures) console.log(`    e.g. ${failure}`);
  }
  console.log(
    `\ndaily cron: answered ${report.cron.status} after ${report.cron.ms} ms (setup of its sessions: ${report.cron.setupMs} ms)`,
  );
  if (report.cron.report) console.log(`the cron's report: ${JSON.stringify(report.cron.report)}`);
  console.log(
    `slowest /health during the cron (ms after the trigger → ms): ${report.cron.slowestHealth.map((h) => `${h.at} → ${h.ms}`).join(', ')}`,
  );
  console.log(`100 concurrent appends stored ${report.storedAppends} messages (goal 100: each once)`);
  console.log(
    `connection resets retried with the same Idempotency-Key (or GET): ${report.retries} (client keep-alive ${report.keepAliveMs} ms)`,
  );
  console.log(`stop: SIGTERM → port closed in ${report.stopMs} ms`);
}

await main();
