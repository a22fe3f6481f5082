/**
 * With recall on, every stage of every preset that replaces, reduces or folds content names what it
 * stands for: the journal entry carries a ref, the stub, marker or summary it leaves shows
 * `reread('<ref>')`, and the recall tools' `reread` returns the original. The histories are the seed
 * fixtures' own (fixtures/<preset>, fixtures/replays), played by `runFixture` through a pipeline with
 * recall on; their expectations are about recall-off bytes and are not checked here.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createPipeline,
  createRecall,
  type FixturePipeline,
  fixedClock,
  INITIAL_STATE,
  type JournalEntry,
  LOST_ACTIONS,
  type Message,
  outputText,
  type PipelineState,
  type Recall,
  renderMessage,
  runFixture,
  sequentialIds,
} from '../../../src/core/index.ts';
import { codingSession } from './coding-session.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures');
const PRESETS = ['default', 'cowagent', 'kosmokrator', 'tiancai', 'co-cli'] as const;

/** What the stages of each preset do to the histories below (stage:action), each of which must name refs. */
const REDUCING: Record<(typeof PRESETS)[number], string[]> = {
  default: [
    'compaction:summarized',
    'dedup:replaced',
    'emergency-trim:removed',
    'historical-truncation:truncated',
    'manual-compact:summarized',
    'output-truncation:spilled',
    'overflow-recovery:removed',
    'pruning:replaced',
    'tool-archiving:archived',
  ],
  cowagent: [
    'cowagent-trim:removed',
    'cowagent-trim:summarized',
    'historical-truncation:truncated',
    'manual-compact:summarized',
    'output-truncation:spilled',
    'output-truncation:truncated',
    'overflow-clear:removed',
    'overflow-recovery:removed',
    'overflow-recovery:truncated',
  ],
  kosmokrator: [
    'dedup:replaced',
    'emergency-trim:removed',
    'kosmokrator-compaction:summarized',
    'output-truncation:spilled',
    'overflow-recovery:removed',
    'pruning:replaced',
  ],
  // tiancai's overflow recovery is its compaction (journalled as such); `archived` is its recent digest.
  tiancai: [
    'output-truncation:spilled',
    'output-truncation:truncated',
    'tiancai-compaction:archived',
    'tiancai-compaction:removed',
    'tiancai-compaction:summarized',
    'tool-archiving:archived',
  ],
  'co-cli': [
    'historical-truncation:truncated',
    'manual-compact:summarized',
    'sliding-window:removed',
    'sliding-window:summarized',
  ],
};

/** One pipeline call of a fixture: what went in, what came out. */
interface Call {
  input: readonly Message[];
  output: readonly Message[];
  journal: readonly JournalEntry[];
  state?: PipelineState;
}

interface Played {
  file: string;
  recall: Recall;
  calls: Call[];
}

/** `createPipeline` with recall on, recording every call the fixture makes. */
function recordingFactory(recall: Recall, calls: Call[]) {
  // biome-ignore lint/suspicious/noExplicitAny: the fixture runner's option object.
  return (options: any): FixturePipeline => {
    const p = createPipeline({ ...options, recall }) as unknown as FixturePipeline;
    const runs =
      <
        A extends { messages: readonly Message[] },
        R extends { messages: Message[]; journal: JournalEntry[]; state: PipelineState },
      >(
        f: (a: A) => Promise<R>,
      ) =>
      async (a: A): Promise<R> => {
        const r = await f(a);
        calls.push({ input: a.messages, output: r.messages, journal: r.journal, state: r.state });
        return r;
      };
    return {
      estimate: (a) => p.estimate(a),
      prepare: runs((a) => p.prepare(a)),
      recoverOverflow: runs((a) => p.recoverOverflow(a)),
      compact: runs((a) => p.compact(a)),
      async admitToolResult(m, a) {
        const r = await p.admitToolResult(m, a);
        calls.push({ input: [m], output: [r.message], journal: r.journal });
        return r;
      },
    };
  };
}

async function play(preset: string): Promise<Played[]> {
  const files = [
    ...(await readdir(join(FIXTURES, preset))).map((f) => join(preset, f)),
    ...(await readdir(join(FIXTURES, 'replays'))).map((f) => join('replays', f)),
  ].filter((f) => f.endsWith('.json'));
  const out: Played[] = [];
  for (const file of files.sort()) {
    const fixture = JSON.parse(await readFile(join(FIXTURES, file), 'utf8')) as { preset?: string };
    if (fixture.preset !== preset) continue;
    const recall = createRecall({ maxTokens: 100_000 });
    const calls: Call[] = [];
    await runFixture(fixture, { createPipeline: recordingFactory(recall, calls) });
    out.push({ file, recall, calls });
  }
  out.push(await direct(preset));
  return out;
}

/**
 * A long coding session with the compaction's breaker open, then `/compact`: what the fixtures do
 * not reach (the default preset's pruning, archiving and manual compaction, the seeds' `/compact`).
 */
async function direct(preset: string): Promise<Played> {
  const recall = createRecall({ maxTokens: 100_000 });
  const calls: Call[] = [];
  const pipeline = recordingFactory(
    recall,
    calls,
  )({
    preset,
    budget: { contextWindow: 64_000 },
    ids: sequentialIds(),
    clock: fixedClock('2026-01-01T00:00:00.000Z'),
  });
  const state = { ...INITIAL_STATE, compactionFailures: 10 };
  const run = await pipeline.prepare({ messages: codingSession(90), state });
  await pipeline.compact({ messages: run.messages, state: run.state });
  return { file: `${preset}: coding session`, recall, calls };
}

/** Everything a message says: text, tool calls' arguments, tool outputs. */
function fullText(m: Message): string {
  return m.parts
    .map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'tool-result'
          ? outputText(p.output)
          : p.type === 'tool-call'
            ? JSON.stringify(p.args)
            : '',
    )
    .join('\n');
}

/** `reread(ref)` whole, its pages joined. */
async function rereadWhole(recall: Recall, ref: string): Promise<string> {
  let text = '';
  for (let offset = 0, pages = 0; pages < 50; pages++) {
    const page = await recall.tools.reread({ ref, offset });
    const more = page.match(
      /\n\[truncated at character (\d+) of \d+: call reread\('[^']+', \{offset: \d+\}\) for the rest\]$/,
    );
    if (!more) return text + page;
    text += page.slice(0, more.index);
    offset = Number(more[1]);
  }
  return text;
}

/** Where the stub of `e` is expected: its replacement, or the message itself when it stays. */
function stubText(e: JournalEntry, call: Call): string | undefined {
  if (e.stage === 'cowagent-trim' && e.action === 'summarized')
    // CowAgent's summary is injected from the next run on: the planned injection carries it (none
    // when a second trim of the same run dropped its target too).
    return call.output.some((m) => m.id === e.replacementId)
      ? (call.state?.pendingInjections ?? []).map((p) => p.summary ?? '').join('\n')
      : undefined;
  // What a turn compression keeps is the message's own text; trimmed turns leave nothing behind.
  if (e.stage === 'cowagent-trim' && e.action === 'replaced') return undefined;
  const id = e.replacementId ?? (e.action === 'removed' ? undefined : e.messageId);
  const m = id === undefined ? undefined : call.output.find((x) => x.id === id);
  return m && fullText(m);
}

describe.each(PRESETS)('recall refs in preset %s', (preset) => {
  let played: Played[];
  beforeAll(async () => {
    played = await play(preset);
  }, 120_000);

  it('names a ref in every journal entry of a reducing stage, and every such stage acts', () => {
    const acted = new Set<string>();
    const missing: string[] = [];
    for (const { file, calls } of played)
      for (const call of calls)
        for (const e of call.journal) {
          if (!LOST_ACTIONS.has(e.action) || e.stage === 'apply-pending-injections') continue;
          acted.add(`${e.stage}:${e.action}`);
          if (e.ref === undefined) missing.push(`${file}: ${e.stage} ${e.action} ${e.messageId}`);
        }
    expect(missing).toEqual([]);
    expect([...acted]).toEqual(expect.arrayContaining(REDUCING[preset]));
  });

  it("shows reread('<ref>') in every stub, marker and summary that stands for removed content", () => {
    const missing: string[] = [];
    let checked = 0;
    for (const { file, calls } of played)
      for (const call of calls)
        for (const e of call.journal) {
          if (!LOST_ACTIONS.has(e.action) || e.stage === 'apply-pending-injections') continue;
          const text = stubText(e, call);
          if (text === undefined) continue;
          checked++;
          if (e.ref === undefined || !text.includes(`reread('${e.ref}')`))
            missing.push(`${file}: ${e.stage} ${e.action} ${e.ref ?? e.messageId}`);
        }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });

  it('returns the original through reread for every ref a stage wrote', async () => {
    const wrong: string[] = [];
    for (const { file, recall, calls } of played) {
      // A summary's span ref stands for many entries: its answer is read once.
      const answers = new Map<string, string>();
      for (const call of calls) {
        const byId = new Map(call.input.map((m) => [m.id, m]));
        for (const e of call.journal) {
          const original = byId.get(e.messageId);
          if (!LOST_ACTIONS.has(e.action) || e.ref === undefined || !original) continue;
          const back = answers.get(e.ref) ?? (await rereadWhole(recall, e.ref));
          answers.set(e.ref, back);
          if (!back.includes(renderMessage(original)))
            wrong.push(`${file}: ${e.stage} ${e.action} ${e.ref}: ${back.slice(0, 120)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
