import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fromGemini,
  type Message,
  parseMessages,
  toAnthropic,
  toGemini,
  toOpenAI,
} from '../../src/core/index.ts';

const load = (name: string) =>
  (
    JSON.parse(readFileSync(resolve(import.meta.dirname, `../fixtures/dialects/${name}`), 'utf8')) as {
      request: never;
    }
  ).request;
const GEMINI3 = load('gemini-3-parallel-calls.json') as { contents: Array<{ parts: unknown[] }> };
const GEMINI25 = load('gemini-2.5-sequential-calls.json');

describe('fromGemini / toGemini', () => {
  it('round-trips the samples exactly', () => {
    expect(toGemini(fromGemini(GEMINI3))).toStrictEqual(GEMINI3);
    expect(toGemini(fromGemini(GEMINI25))).toStrictEqual(GEMINI25);
  });

  it('writes the samples back byte for byte, key order included', () => {
    for (const sample of [GEMINI3, GEMINI25])
      expect(JSON.stringify(toGemini(fromGemini(sample)))).toBe(JSON.stringify(sample));
  });

  it('round-trips through JSON and the neutral schema', () => {
    for (const sample of [GEMINI3, GEMINI25]) {
      const stored = parseMessages(JSON.parse(JSON.stringify(fromGemini(sample))));
      expect(toGemini(stored)).toStrictEqual(sample);
    }
  });

  it('maps thoughts to reasoning, calls and responses to pairs, and keeps each signature on its part', () => {
    const messages = fromGemini(GEMINI3);
    expect(messages.map((m) => `${m.role}:${m.parts.map((p) => p.type).join('+')}`)).toEqual([
      'system:text',
      'user:text+image',
      'assistant:reasoning+tool-call+tool-call',
      'tool:tool-result+tool-result',
      'assistant:tool-call',
      'tool:tool-result',
      'user:text',
      'assistant:text+text',
      'user:text',
    ]);
    const [, first, second] = messages[2]!.parts;
    expect(first).toMatchObject({
      type: 'tool-call',
      id: 'c7f1a2b3',
      provider: { gemini: { part: { thoughtSignature: expect.stringMatching(/^CiQB/) } } },
    });
    expect(second!.provider?.gemini?.part).toBeUndefined();
    expect(messages[6]!.provider).toEqual({ gemini: { continues: true } });
  });

  it('pairs responses without ids to the calls of the model turn before, by name, and sends no id back', () => {
    const messages = fromGemini(GEMINI25);
    const calls = messages[1]!.parts.filter((p) => p.type === 'tool-call');
    const results = messages[2]!.parts.filter((p) => p.type === 'tool-result');
    expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.id));
    expect(calls[1]).toMatchObject({ name: 'get_light_state', args: {} });
  });

  it('writes neutral messages as Gemini contents, results under the call’s name', () => {
    const neutral: Message[] = [
      { id: 's', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      {
        id: 'u',
        role: 'user',
        parts: [
          { type: 'text', text: 'hi' },
          { type: 'image', url: 'data:image/jpeg;base64,AAAA' },
        ],
      },
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'an Anthropic thought', signature: 'sig' },
          { type: 'tool-call', id: 'toolu_1', name: 'grep', args: { q: 'x' } },
        ],
      },
      { id: 't', role: 'tool', parts: [{ type: 'tool-result', callId: 'toolu_1', output: 'two hits' }] },
      { id: 't2', role: 'user', parts: [{ type: 'text', text: 'and?' }] },
    ];
    expect(toGemini(neutral, { foreignCallSignature: 'skip_thought_signature_validator' })).toStrictEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'image/jpeg', data: 'AAAA' } }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { id: 'toolu_1', name: 'grep', args: { q: 'x' } },
              thoughtSignature: 'skip_thought_signature_validator',
            },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'toolu_1', name: 'grep', response: { result: 'two hits' } } },
            { text: 'and?' },
          ],
        },
      ],
    });
  });

  it('names the JSON path of what it does not understand', () => {
    expect(() => fromGemini({ contents: [{ role: 'assistant', parts: [] }] })).toThrow(/contents\[0\]\.role/);
    expect(() =>
      fromGemini({ contents: [{ role: 'user', parts: [{ text: 'a', functionCall: { name: 'x' } }] }] }),
    ).toThrow(/contents\[0\]\.parts\[0\]: a part holds one of text, functionCall, not several/);
    expect(() =>
      fromGemini({ contents: [{ role: 'user', parts: [{ functionCall: { name: 'x' } }] }] }),
    ).toThrow(/functionCall parts belong in model contents/);
    expect(() => fromGemini({})).toThrow(/contents/);
  });

  it('gives the other adapters plain neutral messages (no Gemini fields leak out)', () => {
    const messages = fromGemini(GEMINI3);
    const text = JSON.stringify([toOpenAI(messages), toAnthropic(messages)]);
    // Anthropic rejects a thinking block without its own signature: foreign reasoning is left out.
    expect(JSON.stringify(toAnthropic(messages))).not.toContain('"thinking"');
    expect(text).not.toMatch(/thoughtSignature|CiQB|"provider"|"gemini"/);
  });
});
