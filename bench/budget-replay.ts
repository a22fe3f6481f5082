/**
 * Does what ctxkit sends fit the window, on real histories as they come? Every trajectory in
 * ../shared/data/trajectories is replayed step by step, `default` preset, with its recorded provider
 * `usage`, Claude Code's own summaries, duplicate tool ids and odd parts left in, in the two loops
 * agents run:
 *
 * - `working`: the README loop — the working context the previous `prepare` returned plus what
 *   arrived since, state carried;
 * - `whole`: what per-call framework hooks do — the whole raw history, converted anew every call
 *   (`fromOpenAI`), state carried.
 *
 * Each send is counted exactly (gpt-tokenizer o200k, one count per message plus the system prompt),
 * against the usable input of the window. Reported per window and loop: sends above usable, sends the
 * estimate put at a lower level than the exact count, compactions, whether each compaction kept the
 * newest step verbatim, and the fill right after a compaction (p50, min, max).
 *
 * `npm run bench:budget` — env BENCH_DATA (trajectories dir), BENCH_WINDOWS (default 32000,128000),
 * BENCH_GROUPS (default claude-code,mini-swe-agent,tau-bench), BENCH_LOOPS (default working,whole).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { fromOpenAI } from '../src/core/adapters/openai.ts';
import { canonicalMessage } from '../src/core/messages/digest.ts';
import type { Message } from '../src/core/messages/types.ts';
import { createPipeline } from '../src/core/pipeline/pipeline.ts';
import type { PipelineState } from '../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../src/core/ports.ts';
import { createTiktokenCounter } from '../src/core/tokens/exact.ts';

export type Loop = 'working' | 'whole';

export interface Trajectory {
  group: string;
  name: string;
  /** The raw OpenAI-format messages, as in the file. */
  raw: unknown[];
}

export interface BudgetStep {
  index: number;
  /** Exact o200k tokens of the send (messages + system). */
  sent: number;
  usable: number;
  /** The level the run reported, and the level of the exact count. */
  level: string;
  trueLevel: string;
  compacted: boolean;
  /** After a compaction: every message of the newest step is in the send, unchanged. */
  newestKept?: boolean;
}

const LEVELS = ['ok', 'warn', 'compact', 'block'];

export function loadTrajectories(data: string, groups: readonly string[]): Trajectory[] {
  const out: Trajectory[] = [];
  for (const group of groups) {
    const dir = join(data, group);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)
      .filter((x) => x.endsWith('.json'))
      .sort()) {
      const raw = (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { messages: unknown[] }).messages;
      out.push({ group, name: f.replace(/\.json$/, ''), raw });
    }
  }
  return out;
}

// The package's exact counter (gpt-tokenizer o200k: each part's text, tool names and arguments,
// 4 tokens of framing per message), not the calibrated estimate the preset runs on.
const exact = await createTiktokenCounter('o200k_base', {
  load: async () => await import('gpt-tokenizer/encoding/o200k_base'),
});
const exactMemo = new WeakMap<Message, number>();
/** Exact o200k tokens of a message. */
export function exactTokens(m: Message): number {
  let n = exactMemo.get(m);
  if (n === undefined) {
    n = exact.countMessage(m);
    exactMemo.set(m, n);
  }
  return n;
}

/** Messages from the last assistant message on (the step the model answers next) — or the trailing user turn. */
function newestStep(input: readonly Message[]): Message[] {
  let i = input.length - 1;
  while (i >= 0 && input[i]!.role !== 'assistant') i--;
  return i < 0 ? [] : input.slice(i);
}

export async function replayBudget(
  t: Trajectory,
  window: number,
  loop: Loop,
  system?: string,
): Promise<BudgetStep[]> {
  const pipeline = createPipeline({
    preset: 'default',
    budget: { contextWindow: window },
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
  });
  const usable = pipeline.budget.usable;
  const all = fromOpenAI(t.raw, { path: t.name });
  const steps: BudgetStep[] = [];
  let working: Message[] = [];
  let fed = 0;
  let state: PipelineState | undefined;
  const systemTokens = system ? countTokens(system) : 0;
  for (let i = 1; i < all.length; i++) {
    if (all[i]!.role !== 'assistant') continue;
    // A pre-flight right before the model's call that produced all[i].
    const input =
      loop === 'working'
        ? [...working, ...all.slice(fed, i)]
        : fromOpenAI(t.raw.slice(0, i), { path: t.name });
    const run = await pipeline.prepare({
      messages: input,
      ...(state ? { state } : {}),
      ...(system ? { system } : {}),
    });
    state = run.state;
    working = run.messages;
    fed = i;
    const sent = run.send.reduce((n, m) => n + exactTokens(m), systemTokens);
    const compacted = run.reports.some((r) => r.stage === 'compaction' && r.status === 'applied');
    const step: BudgetStep = {
      index: i,
      sent,
      usable,
      level: run.estimate.level,
      trueLevel: pipeline.budget.level(sent),
      compacted,
    };
    if (compacted) {
      // Kept: sent unchanged — or cut on arrival, before it was first sent (an oversized tool output).
      const sentIds = new Map(run.send.map((m) => [m.id, m]));
      step.newestKept = newestStep(input).every((m) => {
        const s = sentIds.get(m.id);
        return (
          s !== undefined &&
          (canonicalMessage(s) === canonicalMessage(m) || s.meta?.truncatedAtArrival !== undefined)
        );
      });
    }
    steps.push(step);
  }
  return steps;
}

export interface BudgetSummary {
  steps: number;
  overUsable: number;
  /** Sends the run reported at a lower level than their exact count. */
  underReported: number;
  worstOver: number;
  compactions: number;
  newestLost: number;
  fillP50: number;
  fillMin: number;
  fillMax: number;
}

export function summarize(steps: readonly BudgetStep[]): BudgetSummary {
  const fills = steps
    .filter((s) => s.compacted)
    .map((s) => s.sent / s.usable)
    .sort((a, b) => a - b);
  const over = steps.filter((s) => s.sent > s.usable);
  return {
    steps: steps.length,
    overUsable: over.length,
    underReported: steps.filter((s) => LEVELS.indexOf(s.level) < LEVELS.indexOf(s.trueLevel)).length,
    worstOver: over.reduce((w, s) => Math.max(w, s.sent - s.usable), 0),
    compactions: fills.length,
    newestLost: steps.filter((s) => s.newestKept === false).length,
    fillP50: fills.length ? fills[Math.floor((fills.length - 1) / 2)]! : Number.NaN,
    fillMin: fills[0] ?? Number.NaN,
    fillMax: fills.at(-1) ?? Number.NaN,
  };
}

async function main(): Promise<void> {
  const data = process.env.BENCH_DATA ?? '../shared/data/trajectories';
  if (!existsSync(data)) {
    console.log(`skipped: no trajectories at ${data} (see ../shared/data/README.md)`);
    return;
  }
  const windows = (process.env.BENCH_WINDOWS ?? '32000,128000').split(',').map(Number);
  const groups = (process.env.BENCH_GROUPS ?? 'claude-code,mini-swe-agent,tau-bench').split(',');
  const loops = (process.env.BENCH_LOOPS ?? 'working,whole').split(',') as Loop[];
  const trajectories = loadTrajectories(data, groups);
  console.log(`${trajectories.length} trajectories (${groups.join(', ')}), usage kept, default preset`);
  console.log(
    '| window | loop | steps | sent > usable | level under-reported | compactions | newest step lost | fill after compaction p50 (min–max) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const window of windows)
    for (const loop of loops) {
      const steps: BudgetStep[] = [];
      for (const t of trajectories) steps.push(...(await replayBudget(t, window, loop)));
      const s = summarize(steps);
      const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
      console.log(
        `| ${window / 1000}K | ${loop} | ${s.steps} | ${s.overUsable}${s.overUsable ? ` (worst +${s.worstOver})` : ''} | ${s.underReported} | ${s.compactions} | ${s.newestLost} | ${s.compactions ? `${pct(s.fillP50)} (${pct(s.fillMin)}–${pct(s.fillMax)})` : '— (no compaction)'} |`,
      );
    }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
