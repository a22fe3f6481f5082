/**
 * What a call through the incremental context costs next to a plain `prepare` on the same history.
 * Every real trajectory with at least `BENCH_LENGTH` messages (default 300) in ../shared/data is cut
 * to that length, as it comes (recorded usage, duplicate tool ids and odd parts left in), and, at each
 * window, measured in one run:
 *
 * - `prepare (whole)`: `pipeline.prepare` on the whole history, what a hook without the context does
 *   (the same objects each call, so the pipeline's own validation and count caches are warm);
 * - `context, nothing new`: `ctx.prepare(history)` again with the same objects (a framework re-calling
 *   its hook), with objects rebuilt every call (matched by content; the rebuild is not timed), and with
 *   two sets of objects in turn (the history's own and one copy, timed on the history's: a framework
 *   that hands over objects it built two calls ago) — each on a context of its own;
 * - `context, one new message`: the history growing by one message per call up to its length, as an
 *   agent runs (compactions included when the window is crossed).
 *
 * Each row runs in a loop of its own (the garbage of a plain `prepare` is not collected inside the
 * next row's calls). `BENCH_BEFORE=<checkout>` (e.g. /work/main) also measures that checkout's
 * `createContext` on the context rows, in the same run, calls alternating with this one's: a
 * before/after at the same load.
 *
 * p50, p99 and the worst call in ms of wall-clock time, and p50 and p99 of the process's CPU time per
 * call (user + system: on a shared machine the wall clock also counts the time the process waited for a
 * core); `npm run bench:context` — env BENCH_DATA, BENCH_LENGTH,
 * BENCH_WINDOWS (default 32000,128000), BENCH_ROUNDS (default 1000: ~333 calls per history, so that the
 * p99 is not the first call of each fresh context), BENCH_BEFORE.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fromOpenAI } from '../src/core/adapters/openai.ts';
import type { Message } from '../src/core/messages/types.ts';
import { createContext, type IncrementalContext } from '../src/core/pipeline/engine/context.ts';
import { createPipeline } from '../src/core/pipeline/pipeline.ts';

const DATA =
  process.env.BENCH_DATA ?? join(import.meta.dirname, '..', '..', 'shared', 'data', 'trajectories');
const LENGTH = Number(process.env.BENCH_LENGTH ?? 300);
const WINDOWS = (process.env.BENCH_WINDOWS ?? '32000,128000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1000);
const BEFORE = process.env.BENCH_BEFORE;

type Create = typeof createContext;
/** The contexts measured: this checkout's, and the one of `BENCH_BEFORE` when given. */
const impls: { tag: string; create: Create }[] = [{ tag: '', create: createContext }];
if (BEFORE !== undefined) {
  const file = join(BEFORE, 'src', 'core', 'pipeline', 'context.ts');
  if (!existsSync(file)) throw new Error(`BENCH_BEFORE: no ${file}`);
  impls.push({ tag: ' — before', create: ((await import(file)) as { createContext: Create }).createContext });
}

function histories(): { name: string; messages: Message[] }[] {
  const out: { name: string; messages: Message[] }[] = [];
  for (const group of readdirSync(DATA).sort()) {
    const dir = join(DATA, group);
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.json')) continue;
      const raw = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { messages?: unknown[] };
      if (!Array.isArray(raw.messages) || raw.messages.length <= LENGTH) continue;
      out.push({
        name: `${group}/${f}`,
        messages: fromOpenAI(raw.messages, { path: f }).slice(0, LENGTH),
      });
    }
  }
  return out;
}

interface Row {
  window: number;
  what: string;
  /** Wall-clock ms per call. */
  times: number[];
  /** CPU ms per call (user + system, this process): what the call cost without the waits a loaded machine adds. */
  cpu: number[];
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function time(row: Row, f: () => Promise<unknown>): Promise<void> {
  const c = process.cpuUsage();
  const t = performance.now();
  await f();
  row.times.push(performance.now() - t);
  const d = process.cpuUsage(c);
  row.cpu.push((d.user + d.system) / 1000);
}

async function main(): Promise<void> {
  if (!existsSync(DATA)) {
    console.log(`bench:context: no trajectories at ${DATA} (see ../shared/data/README.md); nothing measured`);
    return;
  }
  const all = histories();
  if (all.length === 0) {
    console.log(`bench:context: no trajectory with more than ${LENGTH} messages in ${DATA}`);
    return;
  }
  const rows: Row[] = [];
  const kinds = [
    'context, nothing new (same objects)',
    'context, nothing new (rebuilt objects)',
    'context, nothing new (objects of two calls ago)',
    'context, one new message',
  ];
  for (const window of WINDOWS) {
    const plain: Row = { window, what: 'prepare (whole history)', times: [], cpu: [] };
    rows.push(plain);
    const row = new Map<string, Row>();
    for (const what of kinds)
      for (const { tag } of impls) {
        const r: Row = { window, what: what + tag, times: [], cpu: [] };
        row.set(what + tag, r);
        rows.push(r);
      }
    const perHistory = Math.max(1, Math.floor(ROUNDS / all.length));
    for (const { messages } of all) {
      const history = messages.slice(0, LENGTH);
      const budget = { contextWindow: window };
      const system = 'You are a coding agent.';
      const pipeline = createPipeline({ budget });
      await pipeline.prepare({ messages: history, system, dialect: 'anthropic' });
      for (let r = 0; r < perHistory; r++)
        await time(plain, () => pipeline.prepare({ messages: history, system, dialect: 'anthropic' }));
      const contexts = async () => {
        const out: { tag: string; ctx: IncrementalContext }[] = [];
        for (const { tag, create } of impls) {
          const ctx = create({ budget, dialect: 'anthropic' });
          await ctx.prepare(history, { system });
          out.push({ tag, ctx });
        }
        return out;
      };
      // Nothing new, same objects.
      const same = await contexts();
      for (let r = 0; r < perHistory; r++)
        for (const { tag, ctx } of same)
          await time(row.get(kinds[0]! + tag)!, () => ctx.prepare(history, { system }));
      // Nothing new, every call's objects rebuilt (the copy is made outside the timing).
      const rebuilt = await contexts();
      for (let r = 0; r < perHistory; r++)
        for (const { tag, ctx } of rebuilt) {
          const copy = structuredClone(history);
          await time(row.get(kinds[1]! + tag)!, () => ctx.prepare(copy, { system }));
        }
      // Nothing new, the history's objects and one copy of them in turn; timed on the history's.
      const twice = await contexts();
      const copy = structuredClone(history);
      for (let r = 0; r < perHistory; r++)
        for (const { tag, ctx } of twice) {
          await ctx.prepare(copy, { system });
          await time(row.get(kinds[2]! + tag)!, () => ctx.prepare(history, { system }));
        }
      // One new message per call, as an agent runs: a context that has taken in all but the last
      // `perHistory` messages is handed one more each call, up to the 300th.
      const from = Math.max(1, LENGTH - perHistory);
      const walkers: { tag: string; ctx: IncrementalContext }[] = [];
      for (const { tag, create } of impls) {
        const ctx = create({ budget, dialect: 'anthropic' });
        await ctx.prepare(messages.slice(0, from - 1), { system });
        walkers.push({ tag, ctx });
      }
      for (let n = from; n <= LENGTH; n++)
        for (const { tag, ctx } of walkers)
          await time(row.get(kinds[3]! + tag)!, () => ctx.prepare(messages.slice(0, n), { system }));
    }
  }
  console.log(
    `bench:context — ${all.length} real trajectories cut to ${LENGTH} messages, usage kept; load ${loadavg()[0]!.toFixed(1)}${BEFORE !== undefined ? `; "before": ${BEFORE}` : ''}`,
  );
  console.log('| window | call | p50 ms | p99 ms | worst ms | CPU p50 ms | CPU p99 ms | p50 vs prepare |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const window of WINDOWS) {
    const mine = rows.filter((r) => r.window === window);
    const base = pct(
      [...mine[0]!.times].sort((a, b) => a - b),
      0.5,
    );
    for (const r of mine) {
      const s = [...r.times].sort((a, b) => a - b);
      const c = [...r.cpu].sort((a, b) => a - b);
      const p50 = pct(s, 0.5);
      console.log(
        `| ${window / 1000}K | ${r.what} | ${p50.toFixed(3)} | ${pct(s, 0.99).toFixed(3)} | ${s.at(-1)!.toFixed(3)} | ${pct(c, 0.5).toFixed(3)} | ${pct(c, 0.99).toFixed(3)} | ${(base / p50).toFixed(1)}× faster |`,
      );
    }
  }
}

await main();
