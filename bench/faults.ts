/**
 * `npm run bench:faults`: the drop-in proxy under a misbehaving provider, as `npm start` runs it.
 * Starts a local fake provider (test/support/fake-provider-server.ts) and `node scripts/start.mjs`
 * with its upstreams pointed at the fake and the timeouts set by `--var`, then sends one proxied
 * call per fault through a session and prints, per fault: what the client saw (status, content type,
 * how the body ended), how long it took, what the session stored and what the call's journal says,
 * and how many events the provider wrote after the client left. Then a burst of calls on one key,
 * and the kill -9 phase (bench/faults-kill.ts): `npm start` killed mid-burst and started again on
 * the same state, counting acknowledged, stored and missing turns.
 *
 *   npm run bench:faults -- [--port 8802] [--timeout-ms 2000] [--burst 200] [--kill-sessions 6] [--kill-calls 80]
 *
 * 127.0.0.1 only; bounded (one call per fault, a burst of at most 500, at most 20 × 200 turns).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type ProviderReply, startFakeProvider } from '../test/support/fake-provider-server.ts';
import { abortPhase } from './faults-aborts.ts';
import { killPhase } from './faults-kill.ts';

const ROOT = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8802' },
    'timeout-ms': { type: 'string', default: '2000' },
    burst: { type: 'string', default: '200' },
    'kill-sessions': { type: 'string', default: '6' },
    'kill-calls': { type: 'string', default: '80' },
    aborts: { type: 'string', default: '32' },
    phases: { type: 'string', default: 'faults,aborts,burst,kill' },
  },
});

function bounded(raw: string, name: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`bench:faults: --${name} must be an integer from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
}

const PORT = bounded(values.port, 'port', 1024, 65535);
const TIMEOUT = bounded(values['timeout-ms'], 'timeout-ms', 100, 60_000);
const BURST = bounded(values.burst, 'burst', 1, 500);
const KILL_SESSIONS = bounded(values['kill-sessions'], 'kill-sessions', 1, 20);
const KILL_CALLS = bounded(values['kill-calls'], 'kill-calls', 2, 200);
const ABORTS = bounded(values.aborts, 'aborts', 1, 200);
const PHASE_NAMES = ['faults', 'aborts', 'burst', 'kill'] as const;
const PHASES = new Set(values.phases.split(',').map((p) => p.trim()));
for (const p of PHASES)
  if (!(PHASE_NAMES as readonly string[]).includes(p)) {
    console.error(`bench:faults: --phases takes ${PHASE_NAMES.join(', ')} (comma-separated); not ${p}`);
    process.exit(2);
  }
const BASE = `http://127.0.0.1:${PORT}`;
const OPENAI = '/v1/proxy/openai/chat/completions';

const chunk = (text: string) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'gpt-4o', choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
const words = (n: number) => Array.from({ length: n }, (_, i) => chunk(`w${i} `));

interface Fault {
  name: string;
  reply: ProviderReply;
  stream: boolean;
  /** The client reads the first chunk, then goes away. */
  abortAfterFirst?: boolean;
}

const FAULTS: Fault[] = [
  { name: 'hang (never answers)', reply: { kind: 'hang' }, stream: false },
  {
    name: `slow first byte (${TIMEOUT / 2} ms)`,
    reply: { kind: 'delay', ms: TIMEOUT / 2, reply: { kind: 'answer', text: 'late but whole' } },
    stream: false,
  },
  {
    name: 'slow stream (an event every 200 ms)',
    reply: { kind: 'events', events: [...words(5), 'data: [DONE]\n\n'], everyMs: 200 },
    stream: true,
  },
  {
    name: 'stalled stream (2 events, then silence)',
    reply: { kind: 'events', events: words(2), end: false },
    stream: true,
  },
  { name: 'truncated stream (no [DONE])', reply: { kind: 'events', events: words(3) }, stream: true },
  {
    name: '429 with retry-after',
    reply: { kind: 'status', status: 429, message: 'rate limited', headers: { 'retry-after': '7' } },
    stream: false,
  },
  { name: '500', reply: { kind: 'status', status: 500, message: 'boom' }, stream: false },
  {
    name: 'garbage JSON (HTML)',
    reply: { kind: 'raw', body: '<html>502 Bad Gateway</html>' },
    stream: false,
  },
  { name: 'context-length error', reply: { kind: 'overflow' }, stream: false },
  {
    name: 'client aborts after the first chunk',
    reply: { kind: 'events', events: [...words(100), 'data: [DONE]\n\n'], everyMs: 20 },
    stream: true,
    abortAfterFirst: true,
  },
];

async function waitForHealth(child: ChildProcess, ms: number): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if (child.exitCode !== null) throw new Error('npm start exited before answering');
    try {
      if ((await fetch(`${BASE}/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('npm start did not answer /health in time');
}

async function main(): Promise<void> {
  const fake = await startFakeProvider({ port: 0 });
  const persist = mkdtempSync(join(tmpdir(), 'ctxkit-bench-faults-'));
  const vars = {
    UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
    UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
    UPSTREAM_OPENAI_API_KEY: 'sk-fake-0123456789abcdef',
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(TIMEOUT),
    UPSTREAM_IDLE_TIMEOUT_MS: String(TIMEOUT),
  };
  const args = ['scripts/start.mjs', '--port', String(PORT), '--persist-to', persist];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`);
  let log = '';
  /** `npm start` in its own process group, so that one signal reaches wrangler and workerd too. */
  const start = () => {
    const c = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    c.stdout?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    c.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    return c;
  };
  let child = start();
  try {
    await waitForHealth(child, 120_000);
    const key = /export CTXKIT_KEY=(\S+)/.exec(log)?.[1];
    if (!key) throw new Error('npm start printed no key');
    const headers = (session: string) => ({
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-ctxkit-session': session,
    });
    console.log(
      `bench:faults against npm start (timeouts ${TIMEOUT} ms), load ${loadavg()[0]!.toFixed(1)} on ${BASE}`,
    );
    if (PHASES.has('faults')) {
      console.log(
        '| fault | client saw | ended with | ms | session stored | journal status | provider events after the client left |',
      );
      console.log('|---|---|---|---:|---|---|---:|');
    }
    for (const [i, f] of PHASES.has('faults') ? FAULTS.entries() : []) {
      fake.reset();
      fake.script(f.reply, { kind: 'answer', text: 'after the retry' });
      const session = `fault-${i}`;
      const started = performance.now();
      const gone = new AbortController();
      let status = 0;
      let type = '';
      let ending = '';
      let link: string | null = null;
      try {
        const res = await fetch(BASE + OPENAI, {
          method: 'POST',
          headers: headers(session),
          body: JSON.stringify({
            model: 'gpt-4o',
            stream: f.stream,
            messages: [{ role: 'user', content: 'hi' }],
          }),
          signal: gone.signal,
        });
        status = res.status;
        link = res.headers.get('x-ctxkit-journal');
        type = (res.headers.get('content-type') ?? '').split(';')[0]!;
        if (f.abortAfterFirst) {
          const reader = res.body!.getReader();
          await reader.read();
          gone.abort();
          ending = 'client left';
        } else {
          const text = (await res.text()).trim();
          ending = text.endsWith('[DONE]')
            ? '[DONE]'
            : text.includes('upstream_stream_error') || text.includes('"type":"error"')
              ? 'error event'
              : type === 'application/json'
                ? (JSON.parse(text) as { error?: { code?: string; type?: string } }).error
                  ? `error ${(JSON.parse(text) as { error: { code?: string; type?: string } }).error.code ?? ''}`.trim()
                  : 'answer'
                : text.slice(0, 30);
        }
      } catch (error) {
        ending = f.abortAfterFirst ? 'client left' : `failed: ${String(error)}`;
      }
      const ms = performance.now() - started;
      let after = '';
      if (f.abortAfterFirst) {
        await new Promise((r) => setTimeout(r, 500));
        const s = fake.streams[0];
        const at = s?.written ?? 0;
        await new Promise((r) => setTimeout(r, 1000));
        after = `${(s?.written ?? 0) - at} in the next second${s?.closedEarly ? '' : `; wrote ${s?.written ?? 0} of 101 in all`}`;
      }
      await new Promise((r) => setTimeout(r, f.abortAfterFirst ? 1000 : 300));
      const stored = (await (
        await fetch(`${BASE}/v1/sessions/${session}/messages`, { headers: headers(session) })
      ).json()) as { messages?: Array<{ message: { role: string; meta?: { partial?: boolean } } }> };
      const rows = stored.messages ?? [];
      const what = rows.map((r) => r.message.role + (r.message.meta?.partial ? ' (partial)' : '')).join(', ');
      const call = link
        ? (
            (await (await fetch(BASE + link, { headers: headers(session) })).json()) as {
              call?: { upstream?: { status: number; logged: boolean }; overflow?: { retry: boolean } };
            }
          ).call
        : undefined;
      const journal = call?.upstream
        ? `${call.upstream.status}${call.overflow?.retry ? ' (after a retry)' : ''}${call.upstream.logged ? ', logged' : ''}`
        : '—';
      console.log(
        `| ${f.name} | ${status} ${type} | ${ending} | ${ms.toFixed(0)} | ${what || '—'} | ${journal} | ${after || '—'} |`,
      );
    }

    if (PHASES.has('aborts')) {
      const a = await abortPhase({ base: BASE, key, fake, count: ABORTS, wave: 16 });
      console.log(
        `\naborts: ${a.aborted} streamed calls on one session aborted after their first chunk (16 at once; ` +
          `${a.refusedOnTheWay} × 429 on the way, each sent again after Retry-After); the next call on the session ` +
          `served ${a.servedAfterMs.toFixed(0)} ms after the last abort (${a.refusedAfter} × 429 before it); ` +
          `${a.inFlightAfter} calls in flight then, none ${a.allBackAfterMs.toFixed(0)} ms after the last abort; journal ${Object.entries(
            a.journal,
          )
            .map(([k, n]) => `${n} × ${k}`)
            .join(', ')}; ${a.upstreamClosed} of ${a.aborted} upstream streams closed early, ` +
          `${a.eventsWritten} of ${a.aborted * 201} events written (load ${a.load.toFixed(1)})`,
      );
    }

    // A burst on one key: every answer is JSON, and nothing is lost.
    if (PHASES.has('burst')) {
      fake.reset();
      const started = performance.now();
      const burst = await Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          try {
            const res = await fetch(BASE + OPENAI, {
              method: 'POST',
              // The default first-byte timeout (5 min): a burst queues behind workerd's outbound limit.
              headers: { ...headers(`burst-${i % 10}`), 'x-ctxkit-first-byte-timeout-ms': '300000' },
              body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `burst ${i}` }] }),
            });
            const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
            await res.text();
            return { status: res.status, json };
          } catch {
            return { status: 0, json: false };
          }
        }),
      );
      const by = new Map<number, number>();
      for (const b of burst) by.set(b.status, (by.get(b.status) ?? 0) + 1);
      console.log(
        `\nburst: ${BURST} calls on one key over 10 sessions in ${(performance.now() - started).toFixed(0)} ms: ` +
          `${[...by].map(([s, n]) => `${n} × ${s}`).join(', ')}; not JSON: ${burst.filter((b) => !b.json).length}`,
      );
    }

    // kill -9 of the whole npm start tree mid-burst, then a restart on the same state.
    if (PHASES.has('kill')) {
      fake.reset();
      const total = KILL_SESSIONS * KILL_CALLS;
      const killed = await killPhase({
        base: BASE,
        key,
        sessions: KILL_SESSIONS,
        calls: KILL_CALLS,
        killAt: Math.floor(total / 2),
        kill: () => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {}
        },
        restart: async () => {
          await new Promise((r) => setTimeout(r, 1000));
          child = start();
          await waitForHealth(child, 120_000);
        },
      });
      console.log(
        `\nkill -9 of npm start after ${Math.floor(total / 2)} of ${KILL_SESSIONS} × ${KILL_CALLS} answered turns, then a restart: ` +
          `${killed.acknowledged} acknowledged, ${killed.stored} of them stored, ${killed.missing} missing; ` +
          `${killed.interrupted} calls cut by the kill, ${killed.unacknowledgedStored} of their turns stored; ${killed.answersStored} answers logged; ` +
          `service ${killed.wentDown ? 'down after the kill' : 'STILL ANSWERING after the kill'} ` +
          `(load ${killed.load.toFixed(1)} at the start of the phase)`,
      );
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
    await new Promise((r) => setTimeout(r, 1000));
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
    await fake.close();
    rmSync(persist, { recursive: true, force: true });
  }
}

await main();
