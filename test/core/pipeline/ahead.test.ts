import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createContext } from '../../../src/core/pipeline/engine/context.ts';
import type { PipelineRun } from '../../../src/core/pipeline/engine/runner.ts';
import { createPipeline, type PipelineOptions } from '../../../src/core/pipeline/pipeline.ts';
import type { PipelineEvent, PipelineState } from '../../../src/core/pipeline/types.ts';
import {
  fixedClock,
  type SummarizeRequest,
  type Summarizer,
  sequentialIds,
} from '../../../src/core/ports.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';

/** usable 5,000 tokens: warning at 3,500, compaction at 4,000, blocking at 4,700. */
const BUDGET = {
  contextWindow: 6000,
  reserveOutput: 1000,
  warningBuffer: 1500,
  autoCompactBuffer: 1000,
  blockingBuffer: 300,
};

const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ');
/** Turn `i`: a user question and an answer of about 100 tokens each, text only. */
function turn(i: number): Message[] {
  const text = (who: string) =>
    `${who} ${i}: ${Array.from({ length: 60 }, (_, k) => WORDS[(i * 7 + k) % WORDS.length]).join(' ')} src/mod${i}.ts`;
  return [user(text('question'), { id: `u${i}` }), assistant(text('answer'), [], { id: `a${i}` })];
}
function turns(from: number, to: number): Message[] {
  return Array.from({ length: to - from }, (_, k) => turn(from + k)).flat();
}

/** Counts calls; optionally holds every answer until `release()` (a slow LLM, without real time). */
function countingSummarizer(gated = false) {
  const inner = createDeterministicSummarizer();
  const held: Array<() => void> = [];
  const s = {
    calls: 0,
    held,
    release() {
      for (const go of held.splice(0)) go();
    },
    summarizer: {
      name: 'counting',
      async summarize(request: SummarizeRequest) {
        s.calls++;
        if (gated) await new Promise<void>((go) => held.push(go));
        return inner.summarize(request);
      },
    } satisfies Summarizer,
  };
  return s;
}

/**
 * Counted in characters / 4: the calibrated counter's p95 margin makes `default` compact at 90 % of the
 * compaction level (to 3,604 tokens here), inside the 500-token warning band these steps of ~200
 * tokens must land in.
 */
const COUNTER = createChars4Counter();

function pipelineWith(summarizer: Summarizer, extra: Partial<PipelineOptions> = {}) {
  return createPipeline({
    budget: BUDGET,
    counter: COUNTER,
    summarizer,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
    ...extra,
  });
}

const sources = (run: PipelineRun) =>
  run.events.filter(
    (e): e is Extract<PipelineEvent, { type: 'compaction-source' }> => e.type === 'compaction-source',
  );
const compactionReport = (run: PipelineRun) => run.reports.find((r) => r.stage === 'compaction')!;

/** Whether `p` settles before the next timer: a step that awaited a held summary would not. */
async function settlesAtOnce<T>(p: Promise<T>): Promise<T | 'waiting'> {
  return Promise.race([p, new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 0))]);
}

/** Feeds turns until the pre-flight's input is at `level`; returns the last run and the next turn. */
async function growTo(
  p: ReturnType<typeof createPipeline>,
  level: string,
  start: { messages: Message[]; state?: PipelineState; next: number },
) {
  let { messages, state, next } = start;
  // Bounded: a pipeline that compacts before the level is ever reached fails here instead of hanging.
  for (let steps = 0; steps < 500; steps++) {
    const input = messages.concat(turn(next++));
    if (p.budget.level(p.estimate({ messages: input, ...(state ? { state } : {}) }).tokens) === level)
      return { input, state, next, messages };
    const run = await p.prepare({ messages: input, ...(state ? { state } : {}) });
    messages = run.messages;
    state = run.state;
  }
  throw new Error(`the input never reached ${level} in 500 steps`);
}

describe('pipeline.ahead', () => {
  it('applies the prepared summary, carrying the messages added since verbatim, when the prefix is unchanged', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    const report = await p.ahead({ messages: run.messages, state: run.state });
    expect(report.status).toBe('prepared');
    expect(s.calls).toBe(1);
    const due = await growTo(p, 'compact', { messages: run.messages, state: run.state, next: warm.next });
    const step = await p.prepare({ messages: due.input, ...(due.state ? { state: due.state } : {}) });
    expect(compactionReport(step).status).toBe('applied');
    expect(compactionReport(step).detail).toMatch(/^ahead summary/);
    const source = sources(step)[0]!;
    expect(source.source).toBe('ahead');
    expect(source.staleMessages).toBe(due.input.length - run.messages.length);
    expect(source.fingerprint).toBe(report.fingerprint);
    expect(s.calls).toBe(1);
    // What arrived since the preparation is there, as it came.
    const added = due.input.slice(run.messages.length);
    expect(step.messages.slice(-added.length)).toEqual(added);
    expect(p.budget.level(step.estimate.after)).toBe('ok');
  });

  /** Statuses of `ahead` after each step from warning to the compaction level, and the last run. */
  async function aheadStatuses(summarizer: Summarizer) {
    // A wide warning band (warning at 2,000 tokens, compaction at 4,000): the kept result grows by
    // more than the guard line leaves it before the compaction level.
    const p = pipelineWith(summarizer, { budget: { ...BUDGET, warningBuffer: 3000 } });
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    let run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    const statuses = [(await p.ahead({ messages: run.messages, state: run.state })).status];
    let next = warm.next;
    while (p.budget.level(run.estimate.after) === 'warn') {
      run = await p.prepare({ messages: run.messages.concat(turn(next++)), state: run.state });
      if (p.budget.level(run.estimate.before) !== 'warn') break;
      statuses.push((await p.ahead({ messages: run.messages, state: run.state })).status);
    }
    return { statuses, run };
  }

  it('prepares again (offline) once what arrived since, as much again, would take the kept result over the guard line', async () => {
    const s = countingSummarizer();
    // Named as the offline summarizer: preparations are unlimited, they cost only idle time.
    const { statuses, run } = await aheadStatuses({ ...s.summarizer, name: 'deterministic' });
    expect(statuses[0]).toBe('prepared');
    expect(statuses).toContain('ready');
    expect(statuses.slice(1)).toContain('prepared');
    expect(s.calls).toBe(statuses.filter((x) => x === 'prepared').length);
    expect(sources(run).map((e) => e.source)).toEqual(['ahead']);
  });

  it('asks a paid summarizer again only when the kept result no longer applies', async () => {
    const s = countingSummarizer();
    const { statuses, run } = await aheadStatuses(s.summarizer);
    expect(statuses).toEqual(['prepared', ...statuses.slice(1).map(() => 'ready')]);
    expect(s.calls).toBe(1);
    expect(sources(run).map((e) => e.source)).toEqual(['ahead']);
  });

  it('reads the messages ahead between steps once preparations run there, and no longer in the steps', async () => {
    let phase = 'step';
    const reads: string[] = [];
    const inner = createDeterministicSummarizer();
    const summarizer: Summarizer = {
      name: 'deterministic',
      summarize: (request) => inner.summarize(request),
      ahead: () => void reads.push(phase),
    };
    const p = pipelineWith(summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    let run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    // Above warning, with nothing prepared between steps: the step reads what arrived.
    expect(reads).toEqual(['step']);
    phase = 'idle';
    await p.ahead({ messages: run.messages, state: run.state });
    expect(reads).toEqual(['step', 'idle']);
    phase = 'step';
    run = await p.prepare({ messages: run.messages.concat(turn(warm.next)), state: run.state });
    expect(p.budget.level(run.estimate.before)).toBe('warn');
    expect(reads).toEqual(['step', 'idle']);
  });

  it('discards the prepared summary and compacts inline when an old message was edited since', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    await p.ahead({ messages: run.messages, state: run.state });
    const due = await growTo(p, 'compact', { messages: run.messages, state: run.state, next: warm.next });
    const edited = due.input.map((m, i) =>
      i === 2 ? { ...m, parts: [{ type: 'text' as const, text: 'question 1: never touch migrations/' }] } : m,
    );
    const step = await p.prepare({ messages: edited, ...(due.state ? { state: due.state } : {}) });
    expect(compactionReport(step).status).toBe('applied');
    expect(sources(step).map((e) => [e.source, e.reason])).toEqual([
      ['inline', 'prepared summary stale: message 2 (u1) changed'],
    ]);
    expect(s.calls).toBe(2);
  });

  it('never applies the prepared summary when the history was rewound and went another way', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    await p.ahead({ messages: run.messages, state: run.state });
    // Rewound by two turns, then another branch (other ids and texts) long enough to compact.
    const branch = run.messages.slice(0, -4).concat(turns(100, 110));
    const step = await p.prepare({ messages: branch, state: run.state });
    expect(sources(step)[0]).toMatchObject({ source: 'inline' });
    expect(sources(step)[0]!.reason).toMatch(/stale/);
  });

  it('never applies a prepared summary whose fingerprint no longer matches, whatever covered message changed', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    await p.ahead({ messages: run.messages, state: run.state });
    const due = await growTo(p, 'compact', { messages: run.messages, state: run.state, next: warm.next });
    const state = due.state ?? run.state;
    const changes: Array<(m: Message) => Message> = [
      (m) => ({ ...m, id: `${m.id}-other` }),
      (m) => ({ ...m, meta: { ...m.meta, pinned: true } }),
      (m) => ({ ...m, parts: [{ type: 'text', text: `${(m.parts[0] as { text: string }).text}!` }] }),
    ];
    let checked = 0;
    for (let i = 0; i < run.messages.length; i += 3)
      for (const change of changes) {
        const input = due.input.map((m, k) => (k === i ? change(m) : m));
        const step = await p.prepare({ messages: input, state });
        expect(sources(step).some((e) => e.source === 'ahead')).toBe(false);
        checked++;
      }
    expect(checked).toBeGreaterThan(10);
    // …while the unchanged input still takes it.
    const step = await p.prepare({ messages: due.input, state });
    expect(sources(step)[0]!.source).toBe('ahead');
  });

  it("still applies after ctxkit's own reductions of a covered tool result, and sends the reduced one", async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    const output = Array.from({ length: 40 }, (_, k) => `line ${k}: ${WORDS[k % WORDS.length]}`).join('\n');
    const read = [
      assistant('', [toolCall('c1', 'read', { path: 'src/a.ts' })], { id: 'call1' }),
      toolResult('c1', 'read', output, { id: 'res1' }),
    ];
    const covered = run.messages.concat(read);
    expect((await p.ahead({ messages: covered, state: run.state })).status).toBe('prepared');
    const due = await growTo(p, 'compact', { messages: covered, state: run.state, next: warm.next });
    const original = due.input.find((m) => m.id === 'res1')!;
    const pruned: Message = {
      ...original,
      parts: [
        { ...original.parts[0]!, output: '[Old read output cleared: 400 tokens]' } as Message['parts'][0],
      ],
      meta: { ...original.meta, agentVisible: false, kind: 'tool_result_archived' },
    };
    let input = due.input.map((m) => (m === original ? pruned : m));
    // The reduction took it back under the compaction level: the agent goes on until it is there again.
    for (let next = due.next; p.budget.level(p.estimate({ messages: input }).tokens) !== 'compact'; )
      input = input.concat(turn(next++));
    const step = await p.prepare({ messages: input, ...(due.state ? { state: due.state } : {}) });
    expect(sources(step)[0]).toMatchObject({ source: 'ahead' });
    expect(s.calls).toBe(1);
    // Folded or kept, the full output the pruning removed is not sent again.
    expect(step.messages).not.toContain(original);
    expect(JSON.stringify(step.messages)).not.toContain('line 39:');
  });

  it('keeps the last compaction report exactly as inline when no preparation was ever asked for', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer);
    const due = await growTo(p, 'compact', { messages: [], next: 0 });
    const step = await p.prepare({ messages: due.input, ...(due.state ? { state: due.state } : {}) });
    expect(compactionReport(step).status).toBe('applied');
    expect(sources(step)).toEqual([]);
  });

  it('skips when the pipeline is below warning, and for a preset that prepares nothing', async () => {
    const p = pipelineWith(countingSummarizer().summarizer);
    expect((await p.ahead({ messages: turn(0) })).status).toBe('skipped');
    const seed = createPipeline({ preset: 'kosmokrator' });
    expect(await seed.ahead({ messages: turn(0) })).toMatchObject({ status: 'skipped' });
  });

  it('throws naming the option when ahead is not off or auto', () => {
    expect(() => createPipeline({ ahead: 'sometimes' as 'auto' })).toThrow(/ahead/);
    expect(() => createPipeline({ aheadLimit: 0 })).toThrow(/aheadLimit/);
    expect(() => createPipeline({ aheadLimit: 2.5 })).toThrow(/aheadLimit/);
    expect(() => createPipeline({ aheadLimit: Number.POSITIVE_INFINITY })).toThrow(/aheadLimit/);
    expect(() => createPipeline({ aheadLimit: 1001 })).toThrow(/aheadLimit/);
  });

  it('starts no more than aheadLimit preparations before a compaction is due, one more when it is, then compacts inline', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer, { ahead: 'auto', aheadLimit: 1 });
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    expect((await p.ahead({ messages: run.messages, state: run.state })).status).toBe('prepared');
    // An edit makes it stale: a second preparation would be one more summary request.
    const edit = (ms: Message[], text: string) =>
      ms.map((m, i) => (i === 2 ? { ...m, parts: [{ type: 'text' as const, text }] } : m));
    const edited = edit(run.messages, 'question 1: use pnpm');
    const again = await p.ahead({ messages: edited, state: run.state });
    expect(again).toMatchObject({ status: 'skipped', detail: expect.stringMatching(/aheadLimit/) });
    expect(s.calls).toBe(1);
    // At the compaction level, below blocking, the step puts it off and one more is prepared: the
    // summary inline would ask for anyway, without the wait.
    const due = await growTo(p, 'compact', { messages: edited, state: run.state, next: warm.next });
    const deferred = await p.prepare({ messages: due.input, ...(due.state ? { state: due.state } : {}) });
    expect(sources(deferred)[0]).toMatchObject({ source: 'pending', reason: expect.stringMatching(/due/) });
    expect(await p.ahead({ messages: deferred.messages, state: deferred.state })).toMatchObject({
      status: 'prepared',
    });
    expect(s.calls).toBe(2);
    const next = deferred.messages.concat(turn(due.next));
    const applied = await p.prepare({ messages: next, state: deferred.state });
    expect(sources(applied)[0]).toMatchObject({ source: 'ahead' });
    expect(s.calls).toBe(2);
    // Past the limit and the one granted at the level, a stale preparation means inline.
    const p2 = pipelineWith(countingSummarizer().summarizer, { ahead: 'auto', aheadLimit: 1 });
    await p2.ahead({ messages: run.messages, state: run.state });
    const late = await growTo(p2, 'compact', { messages: edited, state: run.state, next: warm.next });
    const put = await p2.prepare({ messages: late.input, ...(late.state ? { state: late.state } : {}) });
    await p2.ahead({ messages: put.messages, state: put.state });
    const changed = edit(put.messages.concat(turn(late.next)), 'question 1: use yarn');
    const inline = await p2.prepare({ messages: changed, state: put.state });
    expect(compactionReport(inline).status).toBe('applied');
    expect(sources(inline)[0]).toMatchObject({
      source: 'inline',
      reason: expect.stringMatching(/aheadLimit/),
    });
    // A compaction applied: the next preparation may start.
    const grown = await growTo(p2, 'warn', {
      messages: inline.messages,
      state: inline.state,
      next: late.next + 1,
    });
    const ran = await p2.prepare({ messages: grown.input, ...(grown.state ? { state: grown.state } : {}) });
    expect((await p2.ahead({ messages: ran.messages, state: ran.state })).status).not.toBe('skipped');
  });

  it('leaves the deterministic summarizer unlimited and limits any other to 3 by default', async () => {
    const s = countingSummarizer();
    const p = pipelineWith(s.summarizer, {});
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    const statuses: string[] = [];
    for (let k = 0; k < 5; k++) {
      const edited = run.messages.map((m, i) =>
        i === 2 ? { ...m, parts: [{ type: 'text' as const, text: `question 1, version ${k}` }] } : m,
      );
      statuses.push((await p.ahead({ messages: edited, state: run.state })).status);
    }
    expect(statuses).toEqual(['prepared', 'prepared', 'prepared', 'skipped', 'skipped']);
    const local = pipelineWith(createDeterministicSummarizer());
    for (let k = 0; k < 5; k++) {
      const edited = run.messages.map((m, i) =>
        i === 2 ? { ...m, parts: [{ type: 'text' as const, text: `question 1, version ${k}` }] } : m,
      );
      expect((await local.ahead({ messages: edited, state: run.state })).status).toBe('prepared');
    }
  });
});

describe('pipeline.ahead with a slow summarizer', () => {
  it('lets no step below blocking wait for a summary being written, and applies it once written', async () => {
    const s = countingSummarizer(true);
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    const preparing = p.ahead({ messages: run.messages, state: run.state });
    const due = await growTo(p, 'compact', { messages: run.messages, state: run.state, next: warm.next });
    const step = await settlesAtOnce(
      p.prepare({ messages: due.input, ...(due.state ? { state: due.state } : {}) }),
    );
    expect(step).not.toBe('waiting');
    const waited = step as PipelineRun;
    expect(compactionReport(waited).status).toBe('skipped');
    expect(sources(waited)[0]!.source).toBe('pending');
    s.release();
    expect((await preparing).status).toBe('prepared');
    const next = await p.prepare({ messages: due.input.concat(turn(200)), state: waited.state });
    expect(sources(next)[0]).toMatchObject({
      source: 'ahead',
      staleMessages: due.input.length - run.messages.length + 2,
    });
  });

  it('compacts inline at the blocking level even while a summary is being written', async () => {
    const s = countingSummarizer(true);
    const p = pipelineWith(s.summarizer);
    const warm = await growTo(p, 'warn', { messages: [], next: 0 });
    const run = await p.prepare({ messages: warm.input, ...(warm.state ? { state: warm.state } : {}) });
    void p.ahead({ messages: run.messages, state: run.state });
    const block = await growTo(p, 'block', { messages: run.messages, state: run.state, next: warm.next });
    const step = p.prepare({ messages: block.input, ...(block.state ? { state: block.state } : {}) });
    expect(await settlesAtOnce(step)).toBe('waiting');
    s.release();
    await new Promise((r) => setTimeout(r, 0));
    s.release();
    const done = await step;
    expect(sources(done)[0]!.source).toBe('inline');
  });

  it('with the scheduler on, runs a whole session without a step below blocking waiting for a summary', async () => {
    const s = countingSummarizer(true);
    const p = pipelineWith(s.summarizer, { ahead: 'auto' });
    let messages: Message[] = [];
    let state: PipelineState | undefined;
    const tally = { ahead: 0, inline: 0, pending: 0, waited: 0 };
    for (let i = 0; i < 120; i++) {
      const input = messages.concat(turn(i));
      const blocking =
        p.budget.level(p.estimate({ messages: input, ...(state ? { state } : {}) }).tokens) === 'block';
      const pending = p.prepare({ messages: input, ...(state ? { state } : {}) });
      const step = await settlesAtOnce(pending);
      if (step === 'waiting') {
        expect(blocking).toBe(true);
        tally.waited++;
      }
      // The model's time: the scheduled preparation starts and its summary comes back.
      for (let k = 0; k < 3; k++) {
        await new Promise((r) => setTimeout(r, 0));
        s.release();
      }
      const run = await pending;
      for (const e of sources(run)) tally[e.source]++;
      messages = run.messages;
      state = run.state;
    }
    expect(tally.ahead).toBeGreaterThanOrEqual(3);
    expect(tally.inline).toBe(tally.waited);
    expect(tally.waited).toBe(0);
  });
});

describe('createContext ahead', () => {
  it('prepares on the working context and applies it on the next call at the compaction level', async () => {
    const s = countingSummarizer();
    const ctx = createContext({
      budget: BUDGET,
      counter: COUNTER,
      summarizer: s.summarizer,
      ids: sequentialIds(),
    });
    let history: Message[] = [];
    let next = 0;
    let run = await ctx.prepare(history);
    while (ctx.pipeline.budget.level(run.estimate.after) === 'ok') {
      history = history.concat(turn(next++));
      run = await ctx.prepare(history);
    }
    expect((await ctx.ahead()).status).toBe('prepared');
    let used: string | undefined;
    while (used === undefined) {
      history = history.concat(turn(next++));
      run = await ctx.prepare(history);
      used = sources(run)[0]?.source;
    }
    expect(used).toBe('ahead');
    expect(s.calls).toBe(1);
  });
});
