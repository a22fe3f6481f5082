/**
 * `npm run bench:pipeline:synthetic`: milliseconds per pre-flight of the `default` preset against history size
 * when nothing needs to change, beside recounting the whole history with gpt-tokenizer (o200k).
 * Two pre-flight figures: the same history again (a retry), and the history plus one new message
 * (the next step of a session, carrying the previous working context). Median of several runs.
 */

import type { Message } from '../src/core/messages/types.ts';
import { createPipeline } from '../src/core/pipeline/pipeline.ts';
import type { PipelineState } from '../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../src/core/ports.ts';
import { createTiktokenCounter } from '../src/core/tokens/exact.ts';

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,2000,10000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

/** Deterministic pseudo-random words, so that the tokenizer's caches do not flatter the recount. */
let seed = 42;
function words(count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out.push(seed.toString(36).slice(0, 3 + (seed % 6)));
  }
  return out.join(' ');
}

/** A session of `n` messages: user turns with a tool call each; distinct reads, ~100-word outputs. */
function history(n: number): Message[] {
  const out: Message[] = [
    { id: 's0', role: 'system', parts: [{ type: 'text', text: 'You are a coding agent.' }] },
  ];
  for (let i = 0; out.length < n; i++) {
    out.push({
      id: `u${i}`,
      role: 'user',
      parts: [{ type: 'text', text: `Please look at module ${i}: ${words(12)}` }],
    });
    out.push({
      id: `a${i}`,
      role: 'assistant',
      parts: [{ type: 'tool-call', id: `c${i}`, name: 'file_read', args: { path: `src/module-${i}.ts` } }],
    });
    out.push({
      id: `t${i}`,
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: `c${i}`,
          name: 'file_read',
          output: `export const value${i} = ${i}; // ${words(100)}\n`,
        },
      ],
    });
    out.push({
      id: `r${i}`,
      role: 'assistant',
      parts: [{ type: 'text', text: `Module ${i} exports value${i}: ${words(20)}` }],
    });
  }
  return out.slice(0, n);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const tiktoken = await createTiktokenCounter('o200k_base');
// Warm the tokenizer up so that the first size does not pay for loading and JIT.
for (const m of history(2000)) tiktoken.countMessage(m);
const rows: string[] = [];
for (const n of SIZES) {
  const messages = history(n);
  const pipeline = createPipeline({
    preset: 'default',
    budget: { contextWindow: 100_000_000 },
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
  });
  // Warm-up: the first pre-flight counts and validates everything once.
  let run = await pipeline.prepare({ messages });
  const same: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await pipeline.prepare({ messages: run.messages, state: run.state });
    same.push(performance.now() - t);
  }
  const next: number[] = [];
  let state: PipelineState = run.state;
  let working = run.messages;
  for (let i = 0; i < RUNS; i++) {
    const added: Message = {
      id: `n${i}`,
      role: 'user',
      parts: [{ type: 'text', text: `one more question ${i}` }],
    };
    const input = [...working, added];
    const t = performance.now();
    run = await pipeline.prepare({ messages: input, state });
    next.push(performance.now() - t);
    working = run.messages;
    state = run.state;
  }
  const recount: number[] = [];
  for (let i = 0; i < Math.max(3, Math.floor(RUNS / 3)); i++) {
    const t = performance.now();
    let total = 0;
    for (const m of messages) total += tiktoken.countMessage(m);
    recount.push(performance.now() - t);
    if (total < 0) throw new Error('unreachable');
  }
  rows.push(
    `| ${n.toLocaleString('en-US')} | ${median(same).toFixed(3)} | ${median(next).toFixed(3)} | ${median(recount).toFixed(2)} |`,
  );
}
console.log(
  '| messages | pre-flight, same history (ms) | pre-flight, +1 message (ms) | recount with gpt-tokenizer o200k (ms) |',
);
console.log('|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
console.log(`\nmedian of ${RUNS} runs; Node ${process.version}; \`npm run bench:pipeline:synthetic\``);
