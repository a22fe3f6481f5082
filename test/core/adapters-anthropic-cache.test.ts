import { describe, expect, it } from 'vitest';
import { fromAnthropic, toAnthropic } from '../../src/core/adapters/anthropic.ts';
import { fromOpenAI, toOpenAI, usageFromRecord } from '../../src/core/adapters/openai.ts';
import { assistant, toolCall, toolResult, user } from '../../src/core/messages/builders.ts';
import type { Message } from '../../src/core/messages/types.ts';

const EPHEMERAL = { type: 'ephemeral' };

/** Where `cache_control` sits: `system` or `messages[i].content[j]`. */
function breakpoints(request: ReturnType<typeof toAnthropic>): string[] {
  const at: string[] = [];
  if (Array.isArray(request.system))
    request.system.forEach((b, j) => {
      if ((b as { cache_control?: unknown }).cache_control) at.push(`system[${j}]`);
    });
  request.messages.forEach((m, i) => {
    if (Array.isArray(m.content))
      m.content.forEach((b, j) => {
        if ((b as { cache_control?: unknown }).cache_control) at.push(`messages[${i}].content[${j}]`);
      });
  });
  return at;
}

function toolLoop(): Message[] {
  const summary: Message = {
    id: 's',
    role: 'user',
    parts: [{ type: 'text', text: '[Previous conversation summary]\n\nWe fixed the parser.' }],
    meta: { kind: 'summary' },
  };
  return [
    summary,
    user('now run the tests'),
    assistant('', [toolCall('c1', 'Bash', { command: 'npm test' })]),
    toolResult('c1', 'Bash', '2 failed'),
    assistant('', [
      toolCall('c2', 'Read', { file_path: 'a.ts' }),
      toolCall('c3', 'Read', { file_path: 'b.ts' }),
    ]),
    toolResult('c2', 'Read', 'a'),
    toolResult('c3', 'Read', 'b'),
  ];
}

describe('toAnthropic (prompt-cache breakpoints)', () => {
  it('marks the system prompt, the summary, the end of the previous send and the last message', () => {
    const request = toAnthropic(toolLoop(), { system: 'You are a coding agent.' });
    expect(request.system).toEqual([
      { type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL },
    ]);
    // messages: [summary + question], [call c1], [result c1], [calls c2 c3], [results c2 c3]
    expect(breakpoints(request)).toEqual([
      'system[0]',
      'messages[0].content[1]',
      'messages[2].content[0]',
      'messages[4].content[1]',
    ]);
  });

  it('places at most four, and none on a thinking block', () => {
    const thinking: Message = {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'ok' },
        { type: 'reasoning', text: 'hmm', signature: 'sig' },
      ],
    };
    const request = toAnthropic([user('hi'), thinking], { system: 'S' });
    expect(breakpoints(request)).toEqual(['system[0]', 'messages[0].content[0]', 'messages[1].content[0]']);
    expect(breakpoints(toAnthropic(toolLoop(), { system: 'S' })).length).toBeLessThanOrEqual(4);
  });

  it('places none when the caller set its own, and leaves the caller’s where they were', () => {
    const own = fromAnthropic([
      { role: 'user', content: [{ type: 'text', text: 'long document', cache_control: EPHEMERAL }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'question' },
    ]);
    const request = toAnthropic(own, { system: 'S' });
    expect(request.system).toBe('S');
    expect(breakpoints(request)).toEqual(['messages[0].content[0]']);
  });

  it('leaves the system prompt unmarked with `messages` and places nothing with `false`', () => {
    expect(breakpoints(toAnthropic(toolLoop(), { system: 'S', cacheControl: 'messages' }))).not.toContain(
      'system[0]',
    );
    expect(breakpoints(toAnthropic(toolLoop(), { system: 'S', cacheControl: false }))).toEqual([]);
  });

  it('does not change the messages it was given', () => {
    const history = toolLoop();
    const copy = structuredClone(history);
    toAnthropic(history, { system: 'S' });
    expect(history).toEqual(copy);
  });
});

describe('usageFromRecord (cached tokens)', () => {
  it('reads OpenAI’s cached prompt tokens as cache reads, the rest as input', () => {
    expect(
      usageFromRecord({
        prompt_tokens: 5000,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 4096 },
      }),
    ).toMatchObject({ inputTokens: 904, cacheReadTokens: 4096, outputTokens: 20 });
  });

  it('reads the Responses API’s cached input tokens the same way', () => {
    expect(
      usageFromRecord({
        input_tokens: 3000,
        output_tokens: 5,
        input_tokens_details: { cached_tokens: 2048 },
      }),
    ).toMatchObject({ inputTokens: 952, cacheReadTokens: 2048 });
  });

  // GPT-5.6 counts its cache writes inside the prompt: Chat Completions, Responses, and a count larger
  // than what the prompt leaves (not a reading of this call: dropped).
  it.each([
    [
      {
        prompt_tokens: 5000,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 3000, cache_write_tokens: 1800 },
      },
      { inputTokens: 200, outputTokens: 20, cacheReadTokens: 3000, cacheWriteTokens: 1800 },
    ],
    [
      {
        input_tokens: 3000,
        output_tokens: 5,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 2900 },
      },
      { inputTokens: 100, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 2900 },
    ],
    [
      {
        prompt_tokens: 500,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 400, cache_write_tokens: 200 },
      },
      { inputTokens: 100, outputTokens: 2, cacheReadTokens: 400 },
    ],
  ])('reads the cache writes GPT-5.6 reports in %j', (record, usage) => {
    expect(usageFromRecord(record)).toEqual(usage);
  });

  it('keeps the cache reads and writes through a trajectory written and read back', () => {
    const usage = { inputTokens: 100, outputTokens: 5, cacheReadTokens: 9000, cacheWriteTokens: 50 };
    const m: Message = { ...assistant('done', [], { id: 'a1' }), usage };
    const written = toOpenAI([m], { trajectory: true });
    expect(written[0]).toMatchObject({
      usage: { prompt_tokens: 9150, prompt_tokens_details: { cached_tokens: 9000, cache_write_tokens: 50 } },
    });
    expect(fromOpenAI(JSON.parse(JSON.stringify(written)))[0]!.usage).toEqual(usage);
  });

  it('keeps Anthropic’s reads and writes beside its uncached input', () => {
    expect(
      usageFromRecord({
        input_tokens: 12,
        output_tokens: 7,
        cache_read_input_tokens: 9000,
        cache_creation_input_tokens: 300,
      }),
    ).toMatchObject({ inputTokens: 12, cacheReadTokens: 9000, cacheWriteTokens: 300 });
  });
});

describe('usageFromRecord (counts that are not counts)', () => {
  it('reads no usage from a record whose input or output count is not a count', () => {
    expect(usageFromRecord({ prompt_tokens: -5, completion_tokens: 20 })).toBeUndefined();
    expect(usageFromRecord({ input_tokens: 10, output_tokens: 2.5 })).toBeUndefined();
  });

  it('ignores the other counts when they are negative, fractional or not finite', () => {
    expect(
      usageFromRecord({
        input_tokens: 10,
        output_tokens: 3,
        cache_read_input_tokens: -1,
        reasoning_tokens: 1e300,
      }),
    ).toEqual({ inputTokens: 10, outputTokens: 3 });
  });

  it('drops a cached count larger than the prompt it is part of instead of zeroing the input', () => {
    expect(
      usageFromRecord({
        prompt_tokens: 500,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 9e9 },
      }),
    ).toEqual({ inputTokens: 500, outputTokens: 2 });
  });
});
