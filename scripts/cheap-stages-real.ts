/**
 * Every trajectory in ../shared/data/trajectories through each cheap stage on its own (window 32000,
 * reserve 4000, chars/4 counter, memory blob store): counts invariant violations the stage introduced
 * in what the model is sent, changed messages missing from the journal, second runs that are not
 * no-ops (idempotent stages), and the tokens shed where it applied.
 * Run: `npx tsx scripts/cheap-stages-real.ts [dataDir]`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkInvariants,
  createBudget,
  createChars4Counter,
  createDedup,
  createEmergencyTrim,
  createHistoricalTruncation,
  createMemoryBlobStore,
  createOutputTruncation,
  createPruning,
  createToolArchiving,
  fixedClock,
  fromOpenAI,
  INITIAL_STATE,
  type Message,
  memoizeCounter,
  type Stage,
  type StageContext,
  sequentialIds,
  toModelView,
} from '../src/core/index.ts';

const dir = process.argv[2] ?? '../shared/data/trajectories';
if (!existsSync(dir)) {
  console.log(`skipped: no trajectories at ${dir}`);
  process.exit(0);
}
const stages: Array<{ label: string; stage: Stage; idempotent: boolean }> = [
  {
    label: 'output-truncation default (all)',
    stage: createOutputTruncation({ scope: 'all' }),
    idempotent: true,
  },
  {
    label: 'output-truncation tiancai (all)',
    stage: createOutputTruncation({ mode: 'tiancai', scope: 'all' }),
    idempotent: true,
  },
  { label: 'historical cowagent', stage: createHistoricalTruncation(), idempotent: true },
  { label: 'historical co-cli', stage: createHistoricalTruncation({ mode: 'co-cli' }), idempotent: true },
  { label: 'dedup default', stage: createDedup(), idempotent: true },
  {
    label: 'pruning default (8000/4000)',
    stage: createPruning({ protectTokens: 8000, minSavings: 4000 }),
    idempotent: false,
  },
  { label: 'pruning kosmokrator', stage: createPruning({ mode: 'kosmokrator' }), idempotent: false },
  {
    label: 'archiving heuristic sync',
    stage: createToolArchiving({ strategy: 'heuristic', placement: 'in-place' }),
    idempotent: true,
  },
  { label: 'emergency trim', stage: createEmergencyTrim(), idempotent: false },
];
type Stat = {
  applied: number;
  before: number;
  after: number;
  broken: number;
  unjournaled: number;
  unstable: number;
};
const stats = new Map<string, Stat>();
let files = 0;
for (const sub of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()))
  for (const f of readdirSync(join(dir, sub.name))
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const raw = JSON.parse(readFileSync(join(dir, sub.name, f), 'utf8')) as { messages: unknown[] };
    const messages: Message[] = fromOpenAI(raw.messages, { path: f });
    files++;
    const known = new Set(checkInvariants(toModelView(messages)).map((v) => `${v.rule}@${v.messageId}`));
    for (const { label, stage, idempotent } of stages) {
      const ctx: StageContext = {
        counter: memoizeCounter(createChars4Counter()),
        budget: createBudget({ contextWindow: 32_000, reserveOutput: 4_000 }),
        clock: fixedClock(0),
        ids: sequentialIds(),
        summarizer: { name: 'none', summarize: async () => ({ summary: '' }) },
        blobs: createMemoryBlobStore(),
        excludeTools: new Set(),
        state: INITIAL_STATE,
        preset: 'default',
      };
      const r = await stage.run(messages, ctx);
      const s = stats.get(label) ?? {
        applied: 0,
        before: 0,
        after: 0,
        broken: 0,
        unjournaled: 0,
        unstable: 0,
      };
      stats.set(label, s);
      if (r.report.status === 'applied') {
        s.applied++;
        s.before += r.report.tokensBefore;
        s.after += r.report.tokensAfter;
      }
      const fresh = checkInvariants(toModelView(r.messages)).filter(
        (v) => !known.has(`${v.rule}@${v.messageId}`),
      );
      if (fresh.length > 0) s.broken++;
      const now = new Map(r.messages.map((m) => [m.id, m]));
      const named = new Set(r.journal.map((j) => j.messageId));
      if (messages.some((m) => now.get(m.id) !== m && !named.has(m.id))) s.unjournaled++;
      if (idempotent && (await stage.run(r.messages, ctx)).messages !== r.messages) s.unstable++;
    }
  }
console.log(`${files} trajectories, window 32000 (reserve 4000), chars/4 counter`);
console.log(
  '| stage | applied | tokens before → after (shed) | runs breaking an invariant | unjournaled | second run not a no-op |',
);
console.log('|---|---|---|---|---|---|');
for (const [label, s] of stats)
  console.log(
    `| ${label} | ${s.applied} | ${s.applied > 0 ? `${s.before} → ${s.after} (${((1 - s.after / s.before) * 100).toFixed(1)}%)` : '—'} | ${s.broken} | ${s.unjournaled} | ${s.unstable} |`,
  );
