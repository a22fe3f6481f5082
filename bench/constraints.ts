/**
 * Constraint-survival bench (`npm run bench:constraints`): do standing instructions stated early in a
 * real session reach every later send after the `default` preset compacts?
 *
 * Probes: the constraint sentences (`findInstructions`) a real user wrote for an agent in
 * ../shared/data/trajectories/claude-code/subagent.json ("Do NOT enter plan mode…", "Never write
 * 'see mockup'…"). They are appended to the first user message of each long Claude Code session (the
 * simplification: the sessions' own early turns state no constraint), which is then replayed step by
 * step at 8K and 32K; each send becomes the next step's history (as an agent loop carries it), so
 * compactions fold earlier compactions. Reported per window: steps, compactions, sends missing any
 * probe verbatim, and the pinned section's largest size against 1% of the window.
 *
 * Env: BENCH_DATA (trajectories dir), BENCH_PROBES (how many probes, default 6).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fromOpenAI } from '../src/core/adapters/openai.ts';
import { messageText } from '../src/core/messages/text.ts';
import type { Message } from '../src/core/messages/types.ts';
import { createPipeline } from '../src/core/pipeline/pipeline.ts';
import { findInstructions, INSTRUCTIONS_KIND } from '../src/core/pipeline/stages/standing-instructions.ts';
import type { PipelineState } from '../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../src/core/ports.ts';
import { createCalibratedCounter } from '../src/core/tokens/calibrated/calibrated-counter.ts';

const DATA = join(process.env.BENCH_DATA ?? '../shared/data/trajectories', 'claude-code');
const PROBES = Number(process.env.BENCH_PROBES ?? 6);
const WINDOWS = [8_000, 32_000];
/**
 * `deterministic`: ctxkit's offline summarizer (its task section already quotes the first request);
 * `paraphrase`: a summary that keeps none of the user's words, as an LLM paraphrasing them may — the
 * case the pinned section exists for.
 */
const SUMMARIZERS = {
  deterministic: undefined,
  paraphrase: {
    name: 'paraphrase',
    summarize: async () => ({ summary: 'The user asked for work on the repository.' }),
  },
} as const;

function load(file: string): Message[] {
  const raw = JSON.parse(readFileSync(join(DATA, file), 'utf8')) as { messages: unknown[] };
  return fromOpenAI(raw.messages, { path: file }).filter((m) => m.meta?.isCompactSummary !== true);
}

if (!existsSync(join(DATA, 'subagent.json'))) {
  console.log(`skipped: no Claude Code trajectories at ${DATA} (see ../shared/data/README.md)`);
  process.exit(0);
}
// The instructions sit in a command expansion (`isMeta`, which the classifier skips as harness text):
// read as a user's own message here.
const probes = load('subagent.json')
  .map(({ meta: _, ...m }) => m)
  .flatMap((m) => findInstructions(m))
  .slice(0, PROBES);
const sessions = readdirSync(DATA)
  .filter((f) => f.endsWith('.json') && !f.includes('__') && f !== 'subagent.json')
  .sort()
  .map((f) => ({ name: f.slice(0, 8), messages: load(f) }))
  .filter((s) => s.messages.length >= 100);
const counter = createCalibratedCounter({ preset: 'o200k' });

console.log(`probes (${probes.length}, from subagent.json):`);
for (const p of probes) console.log(`  - ${p}`);
console.log(
  '\n| summarizer | window | session | steps | compactions | sends missing a probe | largest section | cap (1%) |',
);
console.log('|---|---:|---|---:|---:|---:|---:|---:|');
let failed = false;
for (const [summarizerName, summarizer] of Object.entries(SUMMARIZERS))
  for (const window of WINDOWS)
    for (const s of sessions) {
      const first = s.messages.findIndex((m) => m.role === 'user');
      const stated: Message = {
        ...s.messages[first]!,
        parts: [...s.messages[first]!.parts, { type: 'text', text: probes.join('\n') }],
      };
      const raw = s.messages.map((m, i) => (i === first ? stated : m));
      const pipeline = createPipeline({
        budget: { contextWindow: window },
        ...(summarizer ? { summarizer } : {}),
        clock: fixedClock('2026-01-01T00:00:00Z'),
        ids: sequentialIds(),
      });
      let history: Message[] = [];
      let state: PipelineState | undefined;
      let taken = 0;
      let steps = 0;
      let compactions = 0;
      let missing = 0;
      let largest = 0;
      for (let i = first + 1; i <= raw.length; i++) {
        if (i < raw.length && raw[i]!.role !== 'assistant') continue;
        history = [...history, ...raw.slice(taken, i)];
        taken = i;
        const run = await pipeline.prepare(state ? { messages: history, state } : { messages: history });
        steps++;
        if (run.reports.some((r) => r.stage === 'compaction' && r.status === 'applied')) compactions++;
        const sent = run.messages.map(messageText).join('\n');
        if (probes.some((p) => !sent.includes(p))) missing++;
        for (const m of run.messages)
          if (m.meta?.kind === INSTRUCTIONS_KIND) largest = Math.max(largest, counter.countMessage(m));
        history = run.messages;
        state = run.state;
      }
      const cap = Math.floor(window * 0.01);
      if (missing > 0 || largest > cap) failed = true;
      console.log(
        `| ${summarizerName} | ${window} | ${s.name} | ${steps} | ${compactions} | ${missing} | ${largest} | ${cap} |`,
      );
    }
const [load1] = loadavg();
console.log(
  `\nload average ${load1!.toFixed(2)}; ${failed ? 'FAILED' : 'every probe verbatim in every send, section within 1% of the window'}`,
);
if (failed) process.exitCode = 1;
