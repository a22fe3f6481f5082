/**
 * `npm run bench:worker`: the edge service under load on this machine. Starts the bundled Worker in
 * workerd (Miniflare: local D1, the session Durable Object, R2) on 127.0.0.1, then N sessions run
 * concurrently, each doing R rounds of "append a user + assistant turn, then prepare the next
 * context (OpenAI dialect)". Prints p50 / p99 latency per operation and requests per second.
 *
 *   npm run bench:worker -- --sessions 20 --rounds 25
 *
 * Bounded: at most 200 sessions × 500 rounds; only 127.0.0.1 is contacted.
 */
import { parseArgs } from 'node:util';
import { type RunningWorker, startWorker } from '../test/worker/support/harness.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '25' },
    preset: { type: 'string', default: 'default' },
  },
});

function bounded(raw: string, name: string, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`--${name} must be an integer from 1 to ${max}`);
    process.exit(2);
  }
  return n;
}

const SESSIONS = bounded(values.sessions, 'sessions', 200);
const ROUNDS = bounded(values.rounds, 'rounds', 500);

type Op = 'append' | 'prepare';
const samples: Record<Op, number[]> = { append: [], prepare: [] };

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

async function timed(op: Op, w: RunningWorker, path: string, key: string, json: unknown): Promise<void> {
  const t0 = performance.now();
  const res = await w.request(path, { method: 'POST', key, json });
  await res.arrayBuffer();
  samples[op].push(performance.now() - t0);
  if (!res.ok) throw new Error(`${op} ${path} → HTTP ${res.status}`);
}

async function runSession(w: RunningWorker, key: string, s: number): Promise<void> {
  const id = `bench-${s}`;
  const created = await w.request('/v1/sessions', {
    method: 'POST',
    key,
    json: { id, preset: values.preset },
  });
  if (created.status !== 201) throw new Error(`create ${id} → HTTP ${created.status}`);
  for (let r = 0; r < ROUNDS; r++) {
    await timed('append', w, `/v1/sessions/${id}/messages`, key, {
      format: 'openai',
      messages: [
        {
          role: 'user',
          content: `Round ${r}: summarise what src/module${r % 7}.ts does and list its exports.`,
        },
        {
          role: 'assistant',
          content: `module${r % 7}.ts parses input and exports parse${r}, format${r} and a default. ${'Detail. '.repeat(30)}`,
        },
      ],
    });
    await timed('prepare', w, `/v1/sessions/${id}/prepare`, key, {
      dialect: 'openai',
      system: 'You are a coding agent.',
    });
  }
}

async function main(): Promise<void> {
  const w = await startWorker();
  try {
    const key = await w.createKey('bench');
    const t0 = performance.now();
    await Promise.all(Array.from({ length: SESSIONS }, (_, s) => runSession(w, key, s)));
    const seconds = (performance.now() - t0) / 1000;
    const total = samples.append.length + samples.prepare.length;
    console.log(
      `ctxkit worker bench: ${SESSIONS} concurrent sessions × ${ROUNDS} rounds (append + prepare), preset ${values.preset}`,
    );
    console.log(`workerd via Miniflare on ${w.url.host}, Node ${process.version}\n`);
    console.log('| operation | requests | p50 ms | p99 ms | max ms |');
    console.log('|---|---:|---:|---:|---:|');
    for (const op of ['append', 'prepare'] as const) {
      const sorted = [...samples[op]].sort((a, b) => a - b);
      const row = [
        op,
        sorted.length,
        percentile(sorted, 50),
        percentile(sorted, 99),
        sorted[sorted.length - 1] ?? Number.NaN,
      ];
      console.log(
        `| ${row[0]} | ${row[1]} | ${(row[2] as number).toFixed(1)} | ${(row[3] as number).toFixed(1)} | ${(row[4] as number).toFixed(1)} |`,
      );
    }
    console.log(
      `\n${total} requests in ${seconds.toFixed(2)} s → ${(total / seconds).toFixed(0)} requests/s`,
    );
  } finally {
    await w.dispose();
  }
}

await main();
