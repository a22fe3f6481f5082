/**
 * Every real trajectory in `../shared/data/trajectories/` replayed through every preset at a 32K
 * window, sent in the OpenAI, Anthropic and Gemini dialects in turn: a pre-flight before each assistant
 * message, on the working context the previous pre-flight returned plus the messages that arrived since. No invariant may break in what is sent, no pinned
 * message may go, and the journal must account for every message that left. Collects the tokens
 * shed per stage; `CTXKIT_TRAJECTORY_REPORT=<file>` writes them as a Markdown table.
 *
 * Provider usage is kept, as real histories carry it: it describes the original uncompacted context,
 * not the replayed one, and the estimate must not be misled by it (see test/cli/budget-holds.test.ts).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../../src/core/adapters/openai.ts';
import { checkInvariants } from '../../src/core/invariants/check.ts';
import type { Dialect, Message } from '../../src/core/messages/types.ts';
import { unaccountedRemovals } from '../../src/core/pipeline/engine/journal.ts';
import { createPipeline } from '../../src/core/pipeline/pipeline.ts';
import { PRESET_NAMES, type PresetName } from '../../src/core/pipeline/presets/presets.ts';
import type { PipelineState } from '../../src/core/pipeline/types.ts';
import { fixedClock, sequentialIds } from '../../src/core/ports.ts';
import { createDeterministicSummarizer } from '../../src/core/summarizers/deterministic-summarizer.ts';

const ROOT = join(import.meta.dirname, '../../../shared/data/trajectories');
const WINDOW = 32_000;
/** Each trajectory is sent in one dialect, in turn. */
const DIALECTS: Dialect[] = ['openai', 'anthropic', 'gemini'];
const BUDGET = {
  contextWindow: WINDOW,
  reserveOutput: 2_560,
  warningBuffer: 7_680,
  autoCompactBuffer: 3_840,
  blockingBuffer: 960,
};

interface Trajectory {
  name: string;
  messages: Message[];
}

function load(): Trajectory[] {
  const out: Trajectory[] = [];
  for (const dir of readdirSync(ROOT).sort())
    for (const file of readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const raw = JSON.parse(readFileSync(join(ROOT, dir, file), 'utf8')) as {
        messages: Array<Record<string, unknown>>;
      };
      const messages = fromOpenAI(raw.messages, { idPrefix: 'm' });
      out.push({ name: `${dir}/${file}`, messages });
    }
  return out;
}

interface Tally {
  runs: number;
  applied: number;
  shed: number;
}

const shed = new Map<string, Tally>(); // `${preset}\t${stage}`
const finals = new Map<PresetName, { input: number; sent: number; block: number }>();

async function replay(preset: PresetName, t: Trajectory, dialect: Dialect): Promise<string[]> {
  const problems: string[] = [];
  const pipeline = createPipeline({
    preset,
    budget: BUDGET,
    summarizer: createDeterministicSummarizer(),
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
  });
  let working: Message[] = [];
  let state: PipelineState | undefined;
  let fed = 0;
  let lastBlock = false;
  for (let i = 0; i <= t.messages.length; i++) {
    const atCall = i === t.messages.length || t.messages[i]!.role === 'assistant';
    if (!atCall || i === 0 || i === fed) continue;
    const arrived = t.messages.slice(fed, i);
    fed = i;
    const input = [...working, ...arrived];
    const run = await pipeline.prepare(
      state ? { messages: input, state, dialect } : { messages: input, dialect },
    );
    for (const v of checkInvariants(run.send, { dialect }))
      problems.push(`${t.name}@${i}: ${v.rule} at ${v.messageId}`);
    for (const id of unaccountedRemovals(input, run.messages, run.journal))
      problems.push(`${t.name}@${i}: ${id} left unjournaled`);
    for (const m of input)
      if (m.meta?.pinned === true && !run.send.some((s) => s.id === m.id))
        problems.push(`${t.name}@${i}: pinned ${m.id} lost`);
    for (const r of run.reports) {
      const key = `${preset}\t${r.stage}`;
      const tally = shed.get(key) ?? { runs: 0, applied: 0, shed: 0 };
      tally.runs += 1;
      if (r.status === 'applied') tally.applied += 1;
      tally.shed += r.tokensBefore - r.tokensAfter;
      shed.set(key, tally);
    }
    working = run.messages;
    state = run.state;
    lastBlock = run.estimate.level === 'block';
  }
  const f = finals.get(preset) ?? { input: 0, sent: 0, block: 0 };
  f.input += pipeline.estimate({ messages: t.messages }).tokens;
  f.sent += pipeline.estimate({ messages: working }).tokens;
  if (lastBlock) f.block += 1;
  finals.set(preset, f);
  return problems;
}

function report(count: number): string {
  const lines = [
    `Tokens shed per stage, ${count} trajectories replayed at a ${WINDOW / 1000}K window (a pre-flight before every assistant message):`,
    '',
    '| preset | stage | runs | applied | tokens shed |',
    '|---|---|---:|---:|---:|',
  ];
  for (const [key, t] of [...shed].sort()) {
    const [preset, stage] = key.split('\t');
    lines.push(`| ${preset} | ${stage} | ${t.runs} | ${t.applied} | ${t.shed.toLocaleString('en-US')} |`);
  }
  lines.push(
    '',
    '| preset | full histories (tokens) | final contexts (tokens) | runs ending at `block` |',
    '|---|---:|---:|---:|',
  );
  for (const [preset, f] of finals)
    lines.push(
      `| ${preset} | ${f.input.toLocaleString('en-US')} | ${f.sent.toLocaleString('en-US')} | ${f.block} |`,
    );
  return lines.join('\n');
}

const present = existsSync(ROOT);
const trajectories = present ? load() : [];

describe.skipIf(!present)('createPipeline on real trajectories', () => {
  it.each(PRESET_NAMES)(
    'breaks no invariant and journals every removal when %s replays every trajectory at 32K',
    async (preset) => {
      const problems: string[] = [];
      for (const [i, t] of trajectories.entries())
        problems.push(...(await replay(preset, t, DIALECTS[i % 3]!)));
      expect(problems.slice(0, 20)).toEqual([]);
    },
    600_000,
  );

  it('writes the tokens-shed report when CTXKIT_TRAJECTORY_REPORT is set', () => {
    const text = report(trajectories.length);
    const target = process.env.CTXKIT_TRAJECTORY_REPORT;
    if (target) writeFileSync(target, `${text}\n`);
    expect(text).toContain('| preset | stage |');
  });
});

if (!present) {
  describe('createPipeline on real trajectories', () => {
    it.skip(`skipped: ${ROOT} is absent (see ../shared/data/README.md)`, () => {});
  });
}
