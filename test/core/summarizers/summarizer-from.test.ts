import { describe, expect, it } from 'vitest';
import { isCtxError } from '../../../src/core/errors.ts';
import { assistant, toolCall, toolResult, user } from '../../../src/core/messages/builders.ts';
import type { Message } from '../../../src/core/messages/types.ts';
import { createPipeline } from '../../../src/core/pipeline/pipeline.ts';
import { fixedClock, type SummarizeRequest, sequentialIds } from '../../../src/core/ports.ts';
import { CO_CLI_SUMMARY_PROMPT, CO_CLI_SYSTEM_PROMPT } from '../../../src/core/summarizers/prompts/co-cli.ts';
import { COWAGENT_SYSTEM_PROMPT } from '../../../src/core/summarizers/prompts/cowagent.ts';
import { KOSMOKRATOR_SYSTEM_PROMPT } from '../../../src/core/summarizers/prompts/kosmokrator.ts';
import {
  type SummarizerAnswer,
  type SummarizerCall,
  summarizerFrom,
} from '../../../src/core/summarizers/summarizer-from.ts';

const history: Message[] = [
  user('we chose Postgres for the store', { id: 'u0' }),
  assistant('', [toolCall('c1', 'file_read', { path: 'src/db.ts' })], { id: 'a0' }),
  toolResult('c1', 'file_read', 'export const db = postgres()', { id: 't0' }),
  assistant('done', [], { id: 'r0' }),
];
const compaction: SummarizeRequest = { purpose: 'compaction', preset: 'default', messages: history };

/** A model function that records its calls and answers from a list (the last answer repeats). */
function model(...answers: Array<SummarizerAnswer | Error | unknown>) {
  const calls: SummarizerCall[] = [];
  const fn = async (call: SummarizerCall) => {
    calls.push(call);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer as SummarizerAnswer;
  };
  return { fn, calls };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('summarizerFrom', () => {
  it('asks with the preset prompt and parses the JSON summary and memories when the family is kosmokrator', async () => {
    const m = model(
      '{"summary": "## Goal\\nStore on Postgres", "memories": [{"type": "decision", "title": "db", "content": "Postgres"}]}',
    );
    const result = await summarizerFrom(m.fn, { model: 'my-model' }).summarize(compaction);
    expect(m.calls).toHaveLength(1);
    const call = m.calls[0]!;
    expect([call.system, call.family, call.purpose, call.preset]).toEqual([
      KOSMOKRATOR_SYSTEM_PROMPT,
      'kosmokrator',
      'compaction',
      'default',
    ]);
    expect(call.prompt).toContain('[user]: we chose Postgres for the store');
    expect(call.prompt).toContain('[assistant → tool_call]: file_read(path: src/db.ts)');
    expect(call.maxOutputTokens).toBe(4096);
    expect('temperature' in call).toBe(false);
    expect(call.messages.map((x) => x.role)).toEqual(['system', 'user']);
    expect(result.summary).toBe('## Goal\nStore on Postgres');
    expect(result.memories?.map((x) => x.title)).toEqual(['db']);
    expect(result.model).toBe('my-model');
    expect(result.usage!.inputTokens).toBeGreaterThan(0);
    expect(result.usage!.outputTokens).toBeGreaterThan(0);
  });

  it('takes the family cap and temperature when the family fixes them (CowAgent memory flush)', async () => {
    const m = model('[DAILY]\nchose Postgres\n[MEMORY]\n- the user prefers Postgres');
    const result = await summarizerFrom(m.fn, { maxOutputTokens: 1000 }).summarize({
      ...compaction,
      purpose: 'memory-flush',
    });
    expect([m.calls[0]!.system, m.calls[0]!.maxOutputTokens, m.calls[0]!.temperature]).toEqual([
      COWAGENT_SYSTEM_PROMPT,
      500,
      0,
    ]);
    expect(result.summary).toBe('chose Postgres');
    expect(result.memories?.map((x) => x.type)).toEqual(['user']);
  });

  it("writes co-cli's chat history as a transcript in the prompt and keeps it as chat turns in messages", async () => {
    const m = model('the summary');
    await summarizerFrom(m.fn).summarize({ ...compaction, purpose: 'sliding-window', preset: 'co-cli' });
    const call = m.calls[0]!;
    expect(call.system).toBe(CO_CLI_SYSTEM_PROMPT);
    expect(call.prompt).toBe(
      [
        '<conversation>',
        '[user]: we chose Postgres for the store',
        '[assistant → tool_call]: file_read({"path":"src/db.ts"})',
        '[tool_result file_read]: export const db = postgres()',
        '[assistant]: done',
        '</conversation>',
        '',
        CO_CLI_SUMMARY_PROMPT,
      ].join('\n'),
    );
    expect(call.messages.map((x) => x.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('passes the abort signal on when the request carries one', async () => {
    const m = model('s');
    const controller = new AbortController();
    await summarizerFrom(m.fn).summarize({ ...compaction, signal: controller.signal });
    expect(m.calls[0]!.signal).toBe(controller.signal);
  });

  it('uses the model and usage the answer reports when it is an object', async () => {
    const m = model({ text: 'plain summary', model: 'gpt-x', usage: { inputTokens: 120, outputTokens: 7 } });
    const result = await summarizerFrom(m.fn, { model: 'fallback-name' }).summarize(compaction);
    expect([result.summary, result.model, result.usage]).toEqual([
      'plain summary',
      'gpt-x',
      { inputTokens: 120, outputTokens: 7 },
    ]);
  });

  it.each([
    [42, 'number'],
    [undefined, 'undefined'],
    [null, 'null'],
    [{ content: 'x' }, 'an object without a string "text"'],
    [['x'], 'an array'],
  ])('throws provider_error naming the type when the function answers %j', async (answer, what) => {
    const error = await rejection(summarizerFrom(model(answer).fn, { name: 'mine' }).summarize(compaction));
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(error.message).toBe(
      `summarizer mine: the function answered ${what}; expected a string or { text: string }`,
    );
  });

  it.each(['', '   ', '<think>only thinking</think>'])(
    'throws provider_error "empty answer" when the answer is %j',
    async (answer) => {
      const error = await rejection(summarizerFrom(model(answer).fn).summarize(compaction));
      expect(isCtxError(error, 'provider_error')).toBe(true);
      expect(error.message).toBe('summarizer custom: empty answer');
    },
  );

  it('strips <think> blocks when the model emits them', async () => {
    const result = await summarizerFrom(model('<think>hmm</think>the summary').fn).summarize({
      ...compaction,
      preset: 'tiancai',
    });
    expect(result.summary).toBe('the summary');
  });

  it('throws provider_error with the cause when the function throws', async () => {
    const boom = new Error('rate limited');
    const error = await rejection(summarizerFrom(model(boom).fn).summarize(compaction));
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(error.message).toBe('summarizer custom: rate limited');
    expect(error.cause).toBe(boom);
  });

  it('asks a second time for memories and keeps the summary when that call fails (second-call)', async () => {
    const m = model('## Goal\nStore on Postgres', new Error('down'));
    const result = await summarizerFrom(m.fn, { memoryExtraction: 'second-call' }).summarize(compaction);
    expect(m.calls.map((c) => c.family)).toEqual(['kosmokrator-two-call', 'kosmokrator-memories']);
    expect(m.calls[1]!.prompt).toBe('## Goal\nStore on Postgres');
    expect(result.summary).toBe('## Goal\nStore on Postgres');
    expect(result.memories).toEqual([]);
  });

  it.each([
    [{ name: ' ' }, 'options.name: must be a non-empty string'],
    [{ maxOutputTokens: 0 }, 'options.maxOutputTokens: must be a whole number from 1 to 1000000'],
    [{ maxOutputTokens: 1.5 }, 'options.maxOutputTokens: must be a whole number from 1 to 1000000'],
    [{ memoryExtraction: 'never' }, 'options.memoryExtraction: must be same-call or second-call'],
  ])('throws invalid_config naming the field when the options are %j', (options, message) => {
    expect(() => summarizerFrom(model('s').fn, options as never)).toThrow(message);
  });

  it('throws invalid_config when fn is not a function', () => {
    expect(() => summarizerFrom('generateText' as never)).toThrow('fn: must be a function');
  });
});

describe('summarizerFrom in a pipeline', () => {
  function session(turns: number): Message[] {
    const out: Message[] = [];
    for (let i = 0; i < turns; i++) {
      out.push(user(`question ${i}`, { id: `u${i}` }));
      out.push(assistant('', [toolCall(`c${i}`, 'file_read', { path: `src/f${i}.ts` })], { id: `a${i}` }));
      out.push(toolResult(`c${i}`, 'file_read', `${i}`.repeat(4_000), { id: `t${i}` }));
      out.push(assistant(`answer ${i}`, [], { id: `r${i}` }));
    }
    return out;
  }
  const options = {
    preset: 'kosmokrator' as const,
    budget: {
      contextWindow: 10_000,
      reserveOutput: 0,
      warningBuffer: 4_000,
      autoCompactBuffer: 2_000,
      blockingBuffer: 1_000,
    },
    clock: fixedClock('2026-01-01T00:00:00Z'),
    ids: sequentialIds(),
  };

  it('compacts with the answer of the function when the history crosses auto-compact', async () => {
    const m = model('{"summary": "## Goal\\nRead the files.", "memories": []}');
    const run = await createPipeline({ ...options, summarizer: summarizerFrom(m.fn) }).prepare({
      messages: session(7),
    });
    expect(m.calls).toHaveLength(1);
    expect(run.reports.find((r) => r.stage === 'kosmokrator-compaction')?.status).toBe('applied');
    expect(JSON.stringify(run.messages)).toContain('Read the files.');
  });

  it('reports failed and goes on when the function answers a non-string', async () => {
    const run = await createPipeline({ ...options, summarizer: summarizerFrom(model(42).fn) }).prepare({
      messages: session(7),
    });
    const report = run.reports.find((r) => r.stage === 'kosmokrator-compaction');
    expect(report?.status).toBe('failed');
    expect(run.state.compactionFailures).toBe(1);
  });
});
