/**
 * `npm run bench:frameworks`: each framework's own context tool beside ctxkit's hook on the same steps,
 * in one run. Runs every `bench/frameworks/<framework>.ts` that exists (each exports
 * `run(opts): Promise<FrameworkBenchRow[]>`, see bench/frameworks/types.ts) and prints one table.
 *
 * Columns: tokens sent, provider-rule violations, reference recall of what the tool left in the prompt
 * (bench/frameworks/recall.ts: the scorer of `ctxcheck bench compaction`), added ms per step.
 *
 * Env: BENCH_DATA (trajectories dir, default ../shared/data/trajectories), BENCH_WINDOWS (default
 * 32000,64000), BENCH_STEPS (model calls per session, default 12), BENCH_ONLY (comma list of frameworks).
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FrameworkBenchOptions, FrameworkBenchRow } from './frameworks/types.ts';

const FRAMEWORKS = ['ai-sdk', 'mastra', 'langchain', 'openai-agents'];
const here = dirname(fileURLToPath(import.meta.url));
const data = process.env.BENCH_DATA ?? join(here, '..', '..', 'shared', 'data', 'trajectories');
const only = process.env.BENCH_ONLY?.split(',');

if (!existsSync(data)) {
  console.log(`skipped: no trajectories at ${data} (see ../shared/data/README.md)`);
  process.exit(0);
}

const opts: FrameworkBenchOptions = {
  data,
  windows: (process.env.BENCH_WINDOWS ?? '32000,64000').split(',').map(Number),
  steps: Number(process.env.BENCH_STEPS ?? 12),
};

const rows: FrameworkBenchRow[] = [];
for (const fw of FRAMEWORKS) {
  if (only && !only.includes(fw)) continue;
  const file = join(here, 'frameworks', `${fw}.ts`);
  if (!existsSync(file)) continue;
  const mod = (await import(file)) as {
    run: (o: FrameworkBenchOptions) => Promise<FrameworkBenchRow[]>;
  };
  rows.push(...(await mod.run(opts)));
}

const fmt = (x: number | undefined, d = 0) => (x === undefined ? '—' : x.toFixed(d));
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} · windows ${opts.windows.join(', ')} · ${opts.steps} steps per session`,
);
console.log(
  '| framework | tool | window | steps | tokens sent (mean / max) | violations | recall | added ms p50 / p99 | note |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.framework} | ${r.tool} | ${r.window} | ${r.steps} | ${fmt(r.tokensSent)} / ${fmt(r.maxTokensSent)} | ${r.violations} | ${fmt(r.recall, 2)} | ${fmt(r.addedMsP50, 2)} / ${fmt(r.addedMsP99, 2)} | ${r.note ?? ''} |`,
  );
