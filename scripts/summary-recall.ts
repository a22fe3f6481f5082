/**
 * Reference recall of the deterministic summarizer on the real trajectories (../shared/data/trajectories):
 * cut each long run at 50% and 75% (moved to the next turn start) and each Claude Code session at its
 * real compaction; the salient references are those the agent writes after the cut (its text and tool
 * arguments, the next 30 messages) that already occurred before it; recall is the share found in the
 * summary of the prefix. The production summaries of Claude Code are measured the same way. Beside it,
 * the early-history facts the summary answers alone (`src/cli/bench-compaction/facts.ts`).
 * Run: `npx tsx scripts/summary-recall.ts [dataDir]`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { earlyFacts, factRecall } from '../src/cli/bench-compaction/facts.ts';
import {
  createDeterministicSummarizer,
  extractReferences,
  fromOpenAI,
  type Message,
  outputText,
  startsTurn,
} from '../src/core/index.ts';

const dir = process.argv[2] ?? '../shared/data/trajectories';
if (!existsSync(dir)) {
  console.log(`skipped: no trajectories at ${dir}`);
  process.exit(0);
}

const text = (m: Message, agentOnly: boolean) =>
  m.parts
    .flatMap((p) => {
      if (agentOnly && m.role !== 'assistant') return [];
      if (p.type === 'text') return [p.text];
      if (p.type === 'tool-call') return [JSON.stringify(p.args)];
      if (p.type === 'tool-result' && !agentOnly) return [outputText(p.output)];
      return [];
    })
    .join('\n');

interface Case {
  prefix: Message[];
  after: Message[];
  production?: Message;
}
const cases: Case[] = [];
for (const sub of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
  for (const f of readdirSync(join(dir, sub.name))
    .filter((x) => x.endsWith('.json') && !x.includes('__agent-'))
    .sort()) {
    const raw = JSON.parse(readFileSync(join(dir, sub.name, f), 'utf8')) as { messages: unknown[] };
    const msgs = fromOpenAI(raw.messages, { path: f });
    const at = msgs.findIndex((m) => m.meta?.isCompactSummary === true);
    if (at > 0) {
      cases.push({ prefix: msgs.slice(0, at), after: msgs.slice(at + 1, at + 31), production: msgs[at]! });
      continue;
    }
    if (msgs.length < 100) continue;
    for (const share of [0.5, 0.75]) {
      let cut = Math.floor(msgs.length * share);
      while (cut < msgs.length && !startsTurn(msgs[cut]!)) cut++;
      if (cut < msgs.length - 1) cases.push({ prefix: msgs.slice(0, cut), after: msgs.slice(cut, cut + 30) });
    }
  }
}

const recall = (refs: string[], summary: string) =>
  refs.length === 0 ? 1 : refs.filter((r) => summary.includes(r)).length / refs.length;
const summarizer = createDeterministicSummarizer();
for (const max of [3000, 6000, 12000]) {
  let total = 0;
  let chars = 0;
  let facts = 0;
  for (const c of cases) {
    const before = new Set(extractReferences(c.prefix.map((m) => text(m, false)).join('\n')).keys());
    const refs = [...extractReferences(c.after.map((m) => text(m, true)).join('\n')).keys()].filter((r) =>
      before.has(r),
    );
    const { summary } = await summarizer.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages: c.prefix,
      maxOutputChars: max,
    });
    total += recall(refs, summary);
    facts += factRecall(earlyFacts(c.prefix), summary);
    chars += summary.length;
  }
  console.log(
    `deterministic, maxOutputChars ${max}: ${cases.length} cases, mean recall ${(total / cases.length).toFixed(3)}, early facts ${(facts / cases.length).toFixed(3)}, mean ${Math.round(chars / cases.length)} chars`,
  );
}
const prod = cases.filter((c) => c.production);
let p = 0;
let pf = 0;
for (const c of prod) {
  const before = new Set(extractReferences(c.prefix.map((m) => text(m, false)).join('\n')).keys());
  const refs = [...extractReferences(c.after.map((m) => text(m, true)).join('\n')).keys()].filter((r) =>
    before.has(r),
  );
  p += recall(refs, text(c.production!, false));
  pf += factRecall(earlyFacts(c.prefix), text(c.production!, false));
}
console.log(
  `production summaries (Claude Code): ${prod.length} cases, mean recall ${(p / Math.max(1, prod.length)).toFixed(3)}, early facts ${(pf / Math.max(1, prod.length)).toFixed(3)}`,
);
