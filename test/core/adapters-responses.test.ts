import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fromResponses,
  type JsonValue,
  type Message,
  parseMessages,
  toAnthropic,
  toOpenAI,
  toResponses,
  toResponsesRequest,
} from '../../src/core/index.ts';

const SAMPLE = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../fixtures/dialects/responses-agent-loop.json'), 'utf8'),
) as { instructions: string; input: Array<Record<string, JsonValue>> };

describe('fromResponses / toResponses', () => {
  it('round-trips the sample items exactly, instructions included', () => {
    const messages = fromResponses(SAMPLE.input, { instructions: SAMPLE.instructions });
    expect(toResponsesRequest(messages)).toStrictEqual({
      instructions: SAMPLE.instructions,
      input: SAMPLE.input,
    });
    expect(toResponses(fromResponses(SAMPLE.input))).toStrictEqual(SAMPLE.input);
  });

  it('writes the sample items back byte for byte, key order included', () => {
    const stored = parseMessages(JSON.parse(JSON.stringify(fromResponses(SAMPLE.input))));
    expect(JSON.stringify(toResponses(stored))).toBe(JSON.stringify(SAMPLE.input));
  });

  it('round-trips every item on its own and through JSON and the neutral schema', () => {
    for (const item of SAMPLE.input) expect(toResponses(fromResponses([item]))).toStrictEqual([item]);
    const stored = parseMessages(JSON.parse(JSON.stringify(fromResponses(SAMPLE.input))));
    expect(toResponses(stored)).toStrictEqual(SAMPLE.input);
  });

  it('groups a response’s reasoning, calls and message into one assistant message, results into tool messages', () => {
    const messages = fromResponses(SAMPLE.input, { instructions: SAMPLE.instructions });
    expect(messages.map((m) => `${m.role}:${m.parts.map((p) => p.type).join('+')}`)).toEqual([
      'system:text',
      'system:text',
      'user:text+image',
      'assistant:reasoning+tool-call+tool-call',
      'tool:tool-result',
      'tool:tool-result',
      'assistant:reasoning+tool-call',
      'tool:tool-result',
      'assistant:reasoning+text',
      'user:text',
      'assistant:text+text',
      'system:text',
      'assistant:text',
      'user:text',
    ]);
    expect(messages[1]!.meta).toEqual({ sourceRole: 'developer' });
    const call = messages[3]!.parts[1]!;
    expect(call).toMatchObject({
      type: 'tool-call',
      id: 'call_Tn2dMjQ8uWv1pX6cB0rK4sLe',
      name: 'read_file',
      args: { path: 'src/parser.ts', start_line: 1, end_line: 80 },
      provider: { responses: { reasoning: 'rs_68af4030baa48193b0b43b4c2a176a1a02d6d4ba3f8cf7a4' } },
    });
    // The custom tool's free-form input stays a string.
    expect(messages[6]!.parts[1]).toMatchObject({
      type: 'tool-call',
      name: 'apply_patch',
      args: expect.any(String),
    });
    // The reasoning text is the summary, for counting and display; the item itself is kept opaque.
    expect(messages[8]!.parts[0]).toMatchObject({
      type: 'reasoning',
      text: expect.stringContaining('**Confirming the fix**'),
    });
  });

  it('keeps encrypted reasoning byte for byte when a stage rewrites the summary text', () => {
    const messages = fromResponses(SAMPLE.input);
    const at = messages.findIndex((m) => m.parts[0]?.type === 'reasoning' && m.parts[1]?.type === 'text');
    const m = messages[at]!;
    const rewritten: Message = { ...m, parts: [{ ...m.parts[0]!, text: 'shortened' } as never, m.parts[1]!] };
    const items = toResponses([rewritten]);
    const original = SAMPLE.input.find(
      (i) => i.id === (m.parts[0]!.provider!.responses!.item as { id: string }).id,
    )!;
    expect(items[0]).toStrictEqual({ ...original, summary: [{ type: 'summary_text', text: 'shortened' }] });
    expect(items[0]!.encrypted_content).toBe(original.encrypted_content);
  });

  it('writes neutral messages in the plain input forms', () => {
    const neutral: Message[] = [
      { id: 's', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      {
        id: 'u',
        role: 'user',
        parts: [
          { type: 'text', text: 'hi' },
          { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
        ],
      },
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'chat-completions reasoning has no item id' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', id: 'c1', name: 'grep', args: { q: 'x' } },
        ],
      },
      { id: 't', role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', output: { hits: 2 } }] },
    ];
    expect(toResponses(neutral)).toStrictEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'hi' },
          { type: 'input_image', image_url: 'data:image/jpeg;base64,AAAA', detail: 'auto' },
        ],
      },
      { role: 'assistant', content: [{ type: 'output_text', text: 'Looking.', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'grep', arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'c1', output: '{"hits":2}' },
    ]);
  });

  it('takes a plain string input as one user message', () => {
    expect(fromResponses('hello')).toMatchObject([
      { role: 'user', parts: [{ type: 'text', text: 'hello' }] },
    ]);
  });

  it('names the JSON path of what it does not understand', () => {
    expect(() => fromResponses([{ type: 7 }])).toThrow(
      /input\[0\]\.type: an item type must be a non-empty string/,
    );
    expect(() =>
      fromResponses([{ type: 'function_call', call_id: 'c', name: 'x', arguments: '{nope' }]),
    ).toThrow(/input\[0\]\.arguments: tool arguments are not valid JSON/);
    expect(() => fromResponses([{ role: 'tool', content: 'x' }])).toThrow(/input\[0\]\.role/);
    expect(() => fromResponses([{ type: 'reasoning', summary: [] }])).toThrow(/input\[0\]\.id/);
    expect(() => fromResponses({})).toThrow(/input: expected a string or an array of items/);
  });

  it('gives the other adapters plain neutral messages (no Responses fields leak out)', () => {
    const messages = fromResponses(SAMPLE.input);
    const text = JSON.stringify([toOpenAI(messages), toAnthropic(messages)]);
    // Anthropic rejects a thinking block without its own signature: foreign reasoning is left out.
    expect(JSON.stringify(toAnthropic(messages))).not.toContain('"thinking"');
    expect(text).not.toMatch(/encrypted_content|fc_68af|annotations|"provider"/);
  });
});
