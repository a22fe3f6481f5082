import { describe, expect, it } from 'vitest';
import { toOpenAI } from '../../../src/core/adapters/openai.ts';
import { isCtxError } from '../../../src/core/errors.ts';
import { assistant, toolCall, user } from '../../../src/core/messages/builders.ts';
import type { Message, ToolDefinition } from '../../../src/core/messages/types.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import { PAID_SUMMARY_TOKENS } from '../../../src/core/pipeline/presets/default/preset.ts';
import { countMargin } from '../../../src/core/pipeline/presets/presets.ts';
import {
  fixedClock,
  type SummarizeRequest,
  type Summarizer,
  sequentialIds,
} from '../../../src/core/ports.ts';
import { createDeterministicSummarizer } from '../../../src/core/summarizers/deterministic-summarizer.ts';
import {
  cachedPrefixInstruction,
  cachedPrefixPrompt,
} from '../../../src/core/summarizers/prompts/cached-prefix.ts';
import { KOSMOKRATOR_SYSTEM_PROMPT } from '../../../src/core/summarizers/prompts/kosmokrator.ts';
import { type SummarizerCall, summarizerFrom } from '../../../src/core/summarizers/summarizer-from.ts';
import { createCalibratedCounter } from '../../../src/core/tokens/calibrated/calibrated-counter.ts';
import { createChars4Counter } from '../../../src/core/tokens/estimators.ts';
import { withFallback } from '../../../src/providers/with-fallback.ts';
import { clockedContext, code, codingSession, sendPoints } from '../pipeline/prompt-cache-helpers.ts';

const SYSTEM = 'You are a coding agent.';
const TOOLS: ToolDefinition[] = [
  { name: 'Bash', description: 'Run a shell command', parameters: { type: 'object', properties: {} } },
];
const ANSWER = '{"summary": "## Goal\\nFix the tokenizer bug", "memories": []}';

/** Replays `codingSession(40)` at 16K with `summarizer`; the calls it got and the sends before each. */
async function replay(summarizer: Summarizer, idleBeforeCompaction = 0) {
  const history = codingSession(40);
  const { ctx, clock } = clockedContext({ summarizer });
  let previous: Message[] = [];
  const sendsBefore: Message[][] = [];
  for (const i of sendPoints(history)) {
    clock.advance(15_000);
    const calls = callsOf(summarizer).length;
    const before = previous;
    // The step that compacts is re-run after an idle past the cache's TTL when asked.
    const run = await ctx.prepare(history.slice(0, i), { system: SYSTEM, tools: TOOLS });
    if (callsOf(summarizer).length > calls) sendsBefore.push(before);
    previous = run.send;
    if (idleBeforeCompaction > 0) clock.advance(idleBeforeCompaction);
  }
  return sendsBefore;
}

const recorded = new WeakMap<Summarizer, SummarizerCall[]>();
const callsOf = (s: Summarizer) => recorded.get(s) ?? [];

function model(prefix?: 'cached'): Summarizer {
  const calls: SummarizerCall[] = [];
  const s = summarizerFrom(
    (call) => {
      calls.push(call);
      return ANSWER;
    },
    prefix ? { prefix } : {},
  );
  recorded.set(s, calls);
  return s;
}

describe('summarizerFrom with prefix: cached', () => {
  it("asks for a compaction's summary on the agent's last send, with its tools, when the cache is warm", async () => {
    const summarizer = model('cached');
    expect(summarizer.prefix).toBe('cached');
    const sendsBefore = await replay(summarizer);
    const calls = callsOf(summarizer);
    expect(calls.length).toBeGreaterThan(0);
    calls.forEach((call, k) => {
      const sent = toOpenAI(sendsBefore[k]!, { system: SYSTEM });
      // The call starts with exactly what the agent sent last (the provider's cached prefix)…
      expect(call.messages.slice(0, sent.length)).toEqual(sent);
      // …then asks for the summary of its first messages; nothing else follows.
      expect(call.messages).toHaveLength(sent.length + 1);
      const last = call.messages.at(-1)!;
      expect(last.role).toBe('user');
      expect(String(last.content)).toMatch(/^The conversation above is being compacted\./);
      expect(String(last.content)).toMatch(/in place of (the first \d+ messages|every message) above/);
      expect(call.tools).toEqual(TOOLS);
      expect(call.system).toBe(SYSTEM);
      // The same in ctxkit's form, for another protocol's adapter.
      expect(toOpenAI(call.sent!.messages, { system: call.sent!.system! })).toEqual(sent);
      expect(call.instruction).toBe(last.content);
    });
  });

  it('asks on a transcript when the cache went cold (idle past its time to live)', async () => {
    const summarizer = model('cached');
    await replay(summarizer, 6 * 60_000);
    const calls = callsOf(summarizer);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.messages[0]).toEqual({ role: 'system', content: KOSMOKRATOR_SYSTEM_PROMPT });
      expect(call.tools).toBeUndefined();
    }
  });

  it('asks on a transcript when the option is left out, even if the request carries the last send', async () => {
    const summarizer = model();
    expect(summarizer.prefix).toBeUndefined();
    await replay(summarizer);
    const messages: Message[] = [user('hello', { id: 'u' }), assistant('hi', [], { id: 'a' })];
    await summarizer.summarize({
      purpose: 'compaction',
      preset: 'default',
      messages,
      sent: { messages, upTo: 2, system: SYSTEM },
    });
    for (const call of callsOf(summarizer))
      expect(call.messages[0]).toEqual({ role: 'system', content: KOSMOKRATOR_SYSTEM_PROMPT });
  });

  it('rejects a prefix other than cached, naming the option', () => {
    let error: unknown;
    try {
      summarizerFrom(() => 'x', { prefix: 'warm' as 'cached' });
    } catch (e) {
      error = e;
    }
    expect(isCtxError(error) && error.code === 'invalid_config' && error.path).toBe('options.prefix');
  });

  it('keeps the wish through withFallback', () => {
    expect(withFallback(model('cached'), createDeterministicSummarizer()).prefix).toBe('cached');
    expect(withFallback(model(), createDeterministicSummarizer()).prefix).toBeUndefined();
  });
});

describe('cachedPrefixPrompt', () => {
  it('puts the last send first and names where the summary ends', () => {
    const messages: Message[] = [
      user('Fix the parser in src/parse.ts', { id: 'u0' }),
      assistant('', [toolCall('c1', 'Read', { file_path: 'src/parse.ts' })], { id: 'a0' }),
      user('Now run the tests', { id: 'u1' }),
    ];
    const plan = cachedPrefixPrompt({
      purpose: 'compaction',
      preset: 'default',
      messages: messages.slice(0, 2),
      sent: { system: SYSTEM, messages, upTo: 2 },
    });
    expect(plan.messages.slice(0, 4)).toEqual(toOpenAI(messages, { system: SYSTEM }));
    const instruction = String(plan.messages.at(-1)!.content);
    expect(instruction).toContain(
      'the first 2 messages above, from the start through the assistant message that calls Read',
    );
    expect(instruction).toContain('The 1 message after them stays verbatim');
    expect(plan.parse(ANSWER).summary).toContain('Fix the tokenizer bug');
  });

  it('asks for every message when the summary stands for all of them', () => {
    const messages = [user('a', { id: 'u0' }), assistant('b', [], { id: 'a0' })];
    expect(cachedPrefixInstruction({ messages, upTo: 2 })).toContain('in place of every message above');
  });
});

describe('default compaction with a paid summarizer', () => {
  /** One pre-flight over a long history at 128K; the compaction's request. */
  async function requestOf(summarizer: Summarizer): Promise<SummarizeRequest> {
    const asked: SummarizeRequest[] = [];
    const spy: Summarizer = {
      ...summarizer,
      summarize: (request) => {
        asked.push(request);
        return summarizer.summarize(request);
      },
    };
    const history: Message[] = [user('Refactor the store module.', { id: 'u0' })];
    for (let k = 0; k < 160; k++) {
      history.push(assistant(`Reading part ${k}.`, [], { id: `a${k}` }));
      history.push(user(code(`part${k}`, 30), { id: `u${k + 1}` }));
    }
    const pipeline = createPipeline({
      budget: { contextWindow: 128_000 },
      summarizer: spy,
      clock: fixedClock('2026-01-01T00:00:00Z'),
      ids: sequentialIds(),
    });
    const run = await pipeline.prepare({ messages: history });
    expect(run.reports.find((r) => r.stage === 'compaction')?.status).toBe('applied');
    return asked[0]!;
  }

  it('asks a paid model for at most 2,000 tokens and the local summarizer for what the fill leaves', async () => {
    const paid = await requestOf(model());
    expect(paid.maxOutputChars).toBeLessThanOrEqual(PAID_SUMMARY_TOKENS * 3.5);
    const local = await requestOf(createDeterministicSummarizer());
    expect(local.maxOutputChars).toBeGreaterThan(PAID_SUMMARY_TOKENS * 3.5);
  });
});

/** The deterministic summarizer, noting the length of every history it is given to read ahead. */
function reading() {
  const seen: number[] = [];
  const inner = createDeterministicSummarizer();
  const summarizer: Summarizer = {
    name: 'reading',
    summarize: (r) => inner.summarize(r),
    ahead: (messages) => seen.push(messages.length),
  };
  return { seen, summarizer };
}

describe('the pipeline passes the summarizer through', () => {
  it("reads ahead once the estimate's upper bound nears warning, before a compaction is due (default counter)", async () => {
    const { seen, summarizer } = reading();
    const pipeline = createPipeline({ budget: { contextWindow: 32_000 }, summarizer });
    const { budget } = pipeline;
    const margin = countMargin(createCalibratedCounter({ preset: 'o200k' }));
    // With the calibrated counter's margin, a compaction is due before the estimate reaches warning:
    // the read-ahead must start on the upper bound, or it never runs.
    expect(budget.autoCompact / margin).toBeLessThan(budget.warning);
    const history: Message[] = [user('Refactor the store module.', { id: 'u0' })];
    for (let k = 0; pipeline.estimate({ messages: history }).tokens * margin < budget.warning; k++) {
      history.push(assistant(`Reading part ${k}.`, [], { id: `a${k}` }));
      history.push(user(code(`part${k}`, 2), { id: `u${k + 1}` }));
    }
    const run = await pipeline.prepare({ messages: history });
    expect(run.reports.find((r) => r.stage === 'compaction')?.status).toBe('skipped');
    expect(seen).toEqual([history.length]);
  });

  it("reads ahead with the summarizer's own ahead above warning", async () => {
    const { seen, summarizer } = reading();
    // A counter without a margin: with the calibrated one's, a compaction is due before warning.
    const pipeline = createPipeline({
      budget: { contextWindow: 16_000 },
      counter: createChars4Counter(),
      summarizer,
    });
    // Grown step by step until the estimate is above warning (and below compaction).
    const history: Message[] = [user('Refactor the store module.', { id: 'u0' })];
    for (let k = 0; pipeline.estimate({ messages: history }).level === 'ok'; k++) {
      history.push(assistant(`Reading part ${k}.`, [], { id: `a${k}` }));
      history.push(user(code(`part${k}`, 3), { id: `u${k + 1}` }));
    }
    expect(pipeline.estimate({ messages: history }).level).toBe('warn');
    await pipeline.prepare({ messages: history });
    expect(seen.length).toBeGreaterThan(0);
  });
});
