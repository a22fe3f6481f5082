/**
 * `npx tsx bench/cheap-stages.ts`: milliseconds per run of each cheap stage (median of 15) against
 * history size, in the steady state where the stage already ran and nothing changes (a pre-flight of
 * the next step). Histories: user turn, 3 tool calls (file_read/grep/bash/glob on 50 paths, ~1 KB
 * outputs), an answer. `BENCH_SIZES=100,1000` to choose sizes.
 */
import { createBudget } from '../src/core/budget/budget.ts';
import type { Message } from '../src/core/messages/types.ts';
import { createToolArchiving } from '../src/core/pipeline/stages/archiving.ts';
import { createDedup } from '../src/core/pipeline/stages/dedup.ts';
import { createEmergencyTrim } from '../src/core/pipeline/stages/emergency-trim.ts';
import { createHistoricalTruncation } from '../src/core/pipeline/stages/historical-truncation.ts';
import { createOutputTruncation } from '../src/core/pipeline/stages/output-truncation.ts';
import { createPruning } from '../src/core/pipeline/stages/pruning.ts';
import { INITIAL_STATE, type Stage, type StageContext } from '../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../src/core/ports.ts';
import { createKosmokratorCounter, memoizeCounter } from '../src/core/tokens/estimators.ts';

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,2000,10000').split(',').map(Number);
const TOOLS = ['file_read', 'grep', 'bash', 'glob'];

function history(n: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; out.length < n; i++) {
    out.push({ id: `u${i}`, role: 'user', parts: [{ type: 'text', text: `question ${i}` }] });
    for (let k = 0; k < 3; k++) {
      const id = `c${i}_${k}`;
      const name = TOOLS[(i + k) % 4]!;
      const args = { path: `src/f${(i * 7 + k) % 50}.ts`, pattern: 'x' };
      out.push({ id: `a${i}_${k}`, role: 'assistant', parts: [{ type: 'tool-call', id, name, args }] });
      const output = `output ${i} ${k}\n`.repeat(60);
      out.push({
        id: `t${i}_${k}`,
        role: 'tool',
        parts: [{ type: 'tool-result', callId: id, name, output }],
      });
    }
    out.push({ id: `r${i}`, role: 'assistant', parts: [{ type: 'text', text: `answer ${i}` }] });
  }
  return out.slice(0, n);
}

const ctx: StageContext = {
  counter: memoizeCounter(createKosmokratorCounter()),
  budget: createBudget({ contextWindow: 100_000_000 }),
  clock: fixedClock(0),
  ids: sequentialIds(),
  summarizer: { name: 'none', summarize: async () => ({ summary: '' }) },
  excludeTools: new Set(),
  state: INITIAL_STATE,
  preset: 'default',
};

const stages = (): Stage[] => [
  createOutputTruncation(),
  createHistoricalTruncation(),
  createDedup(),
  createPruning(),
  createToolArchiving({ strategy: 'heuristic' }),
  createEmergencyTrim(),
];

console.log(
  `| messages | ${stages()
    .map((s) => s.name)
    .join(' | ')} |`,
);
console.log(
  `|---|${stages()
    .map(() => '---')
    .join('|')}|`,
);
for (const n of SIZES) {
  const cells: string[] = [];
  for (const stage of stages()) {
    let input = history(n);
    for (let k = 0; k < 5; k++) input = (await stage.run(input, ctx)).messages; // reach the steady state
    const times: number[] = [];
    for (let r = 0; r < 15; r++) {
      const t0 = performance.now();
      await stage.run(input, ctx);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    cells.push(`${times[7]!.toFixed(2)} ms`);
  }
  console.log(`| ${n} | ${cells.join(' | ')} |`);
}
