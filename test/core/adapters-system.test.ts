import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/core/adapters/anthropic.ts';
import { toGemini } from '../../src/core/adapters/gemini.ts';
import { toOpenAI } from '../../src/core/adapters/openai.ts';
import { toResponsesRequest } from '../../src/core/adapters/responses-out.ts';
import { assistant, user } from '../../src/core/messages/builders.ts';
import { createPipeline } from '../../src/core/pipeline/pipeline.ts';

const history = [user('hello', { id: 'u1' }), assistant('hi', [], { id: 'a1' }), user('next', { id: 'u2' })];

describe('the system option of the to* adapters', () => {
  it('sends the system prompt given to prepare, which run.send never holds', async () => {
    const system = 'You answer in French.';
    const run = await createPipeline().prepare({ messages: history, system });
    expect(run.send.some((m) => m.role === 'system')).toBe(false);
    expect(toOpenAI(run.send, { system })[0]).toEqual({ role: 'system', content: system });
    expect(toAnthropic(run.send, { system, cacheControl: false }).system).toBe(system);
    expect(JSON.stringify(toGemini(run.send, { system }).systemInstruction)).toContain(system);
    expect(toResponsesRequest(run.send, { system }).instructions).toBe(system);
  });

  it('puts the system prompt ahead of a system message the history holds', () => {
    const withOwn = [
      { id: 's', role: 'system' as const, parts: [{ type: 'text' as const, text: 'Be brief.' }] },
      ...history,
    ];
    const out = toOpenAI(withOwn, { system: 'Answer in French.' });
    expect(out.slice(0, 2).map((m) => m.content)).toEqual(['Answer in French.', 'Be brief.']);
    expect(toOpenAI(history)).toHaveLength(3);
  });
});

describe('the to* adapters handed something that is not neutral messages', () => {
  const adapters = { toOpenAI, toAnthropic, toGemini, toResponsesRequest };
  it.each([
    ['undefined', undefined, 'messages'],
    ['a provider message', [{ role: 'user', content: 'hi' }], 'messages[0]'],
    ['null', [history[0], null], 'messages[1]'],
    ['a null part', [{ id: 'u', role: 'user', parts: [null] }], 'messages[0]'],
  ])('throws invalid_input naming the element for %s, not a TypeError', (_, given, path) => {
    for (const to of Object.values(adapters))
      expect(() => (to as (m: unknown) => unknown)(given)).toThrow(
        expect.objectContaining({ code: 'invalid_input', path }),
      );
  });
});
