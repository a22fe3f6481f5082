/**
 * Every trajectory in ../shared/data/trajectories through each compaction-family stage on its own
 * (window 32000, reserve 4000, chars/4 counter, deterministic summarizer): counts invariant violations
 * the stage introduced, removals missing from the journal, and the tokens shed where it applied.
 * Run: `npx tsx scripts/compaction-stages-real.ts [dataDir]`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkInvariants,
  createBudget,
  createChars4Counter,
  createDeterministicSummarizer,
  fixedClock,
  fromOpenAI,
  INITIAL_STATE,
  type Message,
  memoizeCounter,
  type Stage,
  type StageContext,
  sequentialIds,
} from '../src/core/index.ts';
import { slidingWindow } from '../src/core/pipeline/presets/co-cli/sliding-window.ts';
import { cowagentTrim } from '../src/core/pipeline/presets/cowagent/cowagent-trim.ts';
import { kosmokratorCompaction } from '../src/core/pipeline/presets/kosmokrator/kosmokrator-compaction.ts';
import { tiancaiCompaction } from '../src/core/pipeline/presets/tiancai/tiancai-compaction.ts';
import { compaction } from '../src/core/pipeline/stages/compaction.ts';
import { overflowRecovery } from '../src/core/pipeline/stages/overflow.ts';

const dir = process.argv[2] ?? '../shared/data/trajectories';
if (!existsSync(dir)) {
  console.log(`skipped: no trajectories at ${dir}`);
  process.exit(0);
}
const stages: Stage[] = [
  cowagentTrim({ maxContextTokens: 16_000 }),
  slidingWindow(),
  kosmokratorCompaction(),
  tiancaiCompaction(),
  compaction(),
  overflowRecovery({ preset: 'default', attempt: 1 }),
];
const stats = new Map<
  string,
  { applied: number; failed: number; before: number; after: number; broken: number; unjournaled: number }
>();
let files = 0;
for (const sub of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()))
  for (const f of readdirSync(join(dir, sub.name))
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const raw = JSON.parse(readFileSync(join(dir, sub.name, f), 'utf8')) as { messages: unknown[] };
    const messages: Message[] = fromOpenAI(raw.messages, { path: f });
    files++;
    const known = new Set(checkInvariants(messages).map((v) => `${v.rule}@${v.messageId}`));
    const ctx: StageContext = {
      counter: memoizeCounter(createChars4Counter()),
      budget: createBudget({ contextWindow: 32_000, reserveOutput: 4_000 }),
      clock: fixedClock(0),
      ids: sequentialIds(),
      summarizer: createDeterministicSummarizer(),
      excludeTools: new Set(),
      state: INITIAL_STATE,
      preset: 'default',
    };
    for (const stage of stages) {
      const r = await stage.run(messages, ctx);
      const s = stats.get(stage.name) ?? {
        applied: 0,
        failed: 0,
        before: 0,
        after: 0,
        broken: 0,
        unjournaled: 0,
      };
      stats.set(stage.name, s);
      if (r.report.status === 'applied') {
        s.applied++;
        s.before += r.report.tokensBefore;
        s.after += r.report.tokensAfter;
      } else if (r.report.status === 'failed') s.failed++;
      const fresh = checkInvariants(r.messages, { before: messages }).filter(
        (v) => !known.has(`${v.rule}@${v.messageId}`),
      );
      if (fresh.length > 0) s.broken++;
      const kept = new Set(r.messages.map((m) => m.id));
      const named = new Set(r.journal.map((j) => j.messageId));
      if (messages.some((m) => !kept.has(m.id) && !named.has(m.id))) s.unjournaled++;
    }
  }
console.log(`${files} trajectories, window 32000`);
for (const [name, s] of stats)
  console.log(
    `${name}: applied ${s.applied}, failed ${s.failed}, runs breaking an invariant ${s.broken}, runs with unjournaled removals ${s.unjournaled}` +
      (s.applied > 0
        ? `, tokens ${s.before} → ${s.after} (shed ${((1 - s.after / s.before) * 100).toFixed(1)}%)`
        : ''),
  );
