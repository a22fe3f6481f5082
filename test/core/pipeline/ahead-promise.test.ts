import { describe, expect, it } from 'vitest';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import type { PipelineRun } from '../../../src/core/pipeline/engine/runner.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import type { PipelineEvent } from '../../../src/core/pipeline/types.ts';
import { fixedClock, type SummarizeRequest, sequentialIds } from '../../../src/core/ports.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';

/**
 * usable 5,000 tokens: warning at 4,400, compaction at 4,600, blocking at 4,900. A preparation starts
 * below warning from 3,800 (warning minus its distance to the end of the usable window).
 */
const BUDGET = {
  contextWindow: 6000,
  reserveOutput: 1000,
  warningBuffer: 600,
  autoCompactBuffer: 400,
  blockingBuffer: 100,
};

const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ');
const words = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k) % WORDS.length]).join(' ');
/** Turn `i`: a user question and an answer of about 100 tokens each. */
const turn = (i: number): Message[] => [
  user(`question ${i}: ${words(i, 60)} src/mod${i}.ts`, { id: `u${i}` }),
  assistant(`answer ${i}: ${words(i + 1, 60)}`, [], { id: `a${i}` }),
];
/** The agent reads `path` (about `tokens` tokens of output); `n` tells the calls apart. */
const read = (n: number, path: string, tokens: number): Message[] => [
  assistant('', [toolCall(`c${n}`, 'file_read', { path })], { id: `r${n}` }),
  toolResult(`c${n}`, 'file_read', `${path}:\n${'line of the file '.repeat(Math.round(tokens / 4))}`, {
    id: `t${n}`,
  }),
];

function counting() {
  const inner = createDeterministicSummarizer();
  const s = {
    calls: 0,
    summarizer: {
      name: 'deterministic',
      async summarize(request: SummarizeRequest) {
        s.calls++;
        return inner.summarize(request);
      },
    },
  };
  return s;
}

const sources = (run: PipelineRun) =>
  run.events.filter(
    (e): e is Extract<PipelineEvent, { type: 'compaction-source' }> => e.type === 'compaction-source',
  );

function pipeline(summarizer: ReturnType<typeof counting>['summarizer']) {
  return createPipeline({
    budget: BUDGET,
    counter: createChars4Counter(),
    summarizer,
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
    ahead: 'auto',
  });
}

/**
 * A step that finds the compaction due with nothing prepared for its input (the caller rewound the
 * history the kept preparation covered), defers it (below blocking), and whose dedup of seven reads
 * of one file leaves it far below the line preparations start at (3,532 tokens, line 3,800).
 */
async function deferringStep(p: ReturnType<typeof pipeline>) {
  const history = Array.from({ length: 22 }, (_, i) => turn(i)).flat();
  const first = await p.prepare({ messages: history });
  expect((await p.ahead({ messages: first.messages, state: first.state })).status).toBe('prepared');
  const input = history.slice(0, 36).concat(...[1, 2, 3, 4, 5, 6, 7].map((n) => read(n, 'src/big.ts', 200)));
  const run = await p.prepare({ messages: input, state: first.state });
  expect(sources(run).map((e) => e.source)).toEqual(['pending']);
  expect(run.reports.find((r) => r.stage === 'dedup')?.status).toBe('applied');
  expect(run.estimate.after).toBeLessThan(p.budget.warning - (p.budget.usable - p.budget.warning));
  return run;
}

/** A new request large enough to take the next step to the blocking level. */
const bigRequest = () => user(`new request: ${words(3, 1200)}`, { id: 'u-big' });

describe('pipeline.ahead', () => {
  it('prepares the compaction a step deferred, though that step left less than the line preparations start at', async () => {
    const s = counting();
    const p = pipeline(s.summarizer);
    const run = await deferringStep(p);
    const report = await p.ahead({ messages: run.messages, state: run.state });
    expect(report.status).toBe('prepared');
    const calls = s.calls;
    const next = await p.prepare({ messages: run.messages.concat(bigRequest()), state: run.state });
    expect(p.budget.level(next.estimate.before)).toBe('block');
    expect(sources(next)).toMatchObject([{ source: 'ahead', fingerprint: report.fingerprint }]);
    // The step at the blocking level asked the summarizer for nothing: the summary was ready.
    expect(s.calls).toBe(calls);
  });

  it('has the scheduler prepare it after a deferring step whose level is ok', async () => {
    const s = counting();
    const p = pipeline(s.summarizer);
    const run = await deferringStep(p);
    expect(run.estimate.level).toBe('ok');
    const calls = s.calls;
    // The scheduler starts on a timer after the step; the offline summary takes a few turns more.
    for (let turns = 0; turns < 50 && s.calls === calls; turns++) await new Promise((r) => setTimeout(r, 0));
    expect(s.calls).toBe(calls + 1);
    await new Promise((r) => setTimeout(r, 0));
    const next = await p.prepare({ messages: run.messages.concat(bigRequest()), state: run.state });
    expect(sources(next).map((e) => e.source)).toEqual(['ahead']);
  });

  it('prepares below warning on the input the step that finds the compaction due sees: nothing archived', async () => {
    const s = counting();
    const p = pipeline(s.summarizer);
    // Ten files read, then talk: below warning (3,844 tokens), inside the band where a preparation starts.
    const reads = Array.from({ length: 10 }, (_, n) => read(n, `src/file${n}.ts`, 150)).flat();
    const history = [...reads, ...Array.from({ length: 12 }, (_, i) => turn(i)).flat()];
    const run = await p.prepare({ messages: history });
    expect(run.estimate.level).toBe('ok');
    const report = await p.ahead({ messages: run.messages, state: run.state });
    expect(report.status).toBe('prepared');
    const calls = s.calls;
    // Turns until a step finds the compaction due: it skips archiving (the compaction folds what it
    // would shed), so a preparation that had archived the old reads would be stale there.
    let step = run;
    for (let next = 12; next < 24 && sources(step).length === 0; next++)
      step = await p.prepare({ messages: step.messages.concat(turn(next)), state: step.state });
    expect(sources(step)).toMatchObject([{ source: 'ahead', fingerprint: report.fingerprint }]);
    expect(step.reports.find((r) => r.stage === 'tool-archiving')?.status).toBe('skipped');
    expect(s.calls).toBe(calls);
  });
});
