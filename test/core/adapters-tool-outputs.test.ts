import { describe, expect, it } from 'vitest';
import {
  createChars4Counter,
  fromAnthropic,
  fromGemini,
  fromResponses,
  type JsonValue,
  type Message,
  parseMessages,
  toAnthropic,
  toGemini,
  toOpenAI,
  toResponses,
} from '../../src/core/index.ts';

/** 40,000 characters of base64: 10,000 tokens if it were counted as text (chars/4). */
const PNG = 'iVBORw0KGgo'.padEnd(40_000, 'A');
const PDF = 'JVBERi0xLjQKJcfs';
/** chars4 charges an image 4,800 characters: a result with one image stays near 1,200 tokens. */
const IMAGE_SIZED = 1_500;

/** A Responses call whose output is a list: text, a screenshot, a file. */
const RESPONSES: Array<Record<string, JsonValue>> = [
  { role: 'user', content: 'Open the page.' },
  { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{"url":"https://x.test"}' },
  {
    type: 'function_call_output',
    call_id: 'call_1',
    output: [
      { type: 'input_text', text: 'the page' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'high' },
      { type: 'input_file', filename: 'page.pdf', file_data: `data:application/pdf;base64,${PDF}` },
    ],
  },
  { type: 'function_call', call_id: 'call_2', name: 'noop', arguments: '{}' },
  { type: 'function_call_output', call_id: 'call_2', output: [] },
];

/** An Anthropic `tool_result` whose content is a list: text (cached), an image, a document. */
const ANTHROPIC = {
  messages: [
    { role: 'user', content: 'Open the page.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: { url: 'https://x.test' } }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'the page', cache_control: { type: 'ephemeral' } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: PDF },
              title: 'page.pdf',
            },
          ],
          cache_control: { type: 'ephemeral' },
        },
        { type: 'text', text: 'What does it say?' },
      ],
    },
  ],
};

/** A Gemini 3 multimodal function response: `response` and `parts` (an image, a PDF). */
const GEMINI = {
  contents: [
    { role: 'user', parts: [{ text: 'Open the page.' }] },
    {
      role: 'model',
      parts: [{ functionCall: { id: 'fc1', name: 'screenshot', args: { url: 'https://x.test' } } }],
    },
    {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'fc1',
            name: 'screenshot',
            response: { image: { $ref: 'page.png' }, title: 'the page' },
            parts: [
              { inlineData: { mimeType: 'image/png', data: PNG, displayName: 'page.png' } },
              { inlineData: { mimeType: 'application/pdf', data: PDF, displayName: 'page.pdf' } },
            ],
          },
        },
      ],
    },
  ],
};

const results = (messages: Message[]) =>
  messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool-result' ? [p] : [])));
const toolMessage = (messages: Message[]) => messages.find((m) => m.role === 'tool')!;
const counter = createChars4Counter();
const stored = (messages: Message[]) => parseMessages(JSON.parse(JSON.stringify(messages)));

/** Per dialect: its sample, its adapters, the kinds its result's parts are read as, and its `output`. */
const DIALECTS = [
  {
    reader: 'fromResponses',
    sample: RESPONSES as unknown,
    read: (x: unknown) => fromResponses(x),
    write: (m: Message[]): unknown => toResponses(m),
    kinds: ['text', 'image', 'input_file'],
    output: 'the page',
  },
  {
    reader: 'fromAnthropic',
    sample: ANTHROPIC as unknown,
    read: (x: unknown) => fromAnthropic(x),
    write: (m: Message[]): unknown => toAnthropic(m),
    kinds: ['text', 'image', 'document'],
    output: 'the page',
  },
  {
    reader: 'fromGemini',
    sample: GEMINI as unknown,
    read: (x: unknown) => fromGemini(x),
    write: (m: Message[]): unknown => toGemini(m),
    kinds: ['text', 'image', 'inlineData'],
    output: JSON.stringify({ image: { $ref: 'page.png' }, title: 'the page' }),
  },
];

for (const d of DIALECTS)
  describe(d.reader, () => {
    it('reads a multi-part tool output as text, image and file parts', () => {
      const [result] = results(d.read(d.sample));
      expect(result?.content?.map((c) => (c.type === 'opaque' ? c.kind : c.type))).toEqual(d.kinds);
      expect(result?.output).toBe(d.output);
    });

    it('counts a tool output with a base64 image as an image, not as 10,000 tokens of text', () => {
      expect(counter.countMessage(toolMessage(d.read(d.sample)))).toBeLessThan(IMAGE_SIZED);
    });

    it('writes the tool output back byte for byte, also after JSON and the neutral schema', () => {
      const messages = d.read(d.sample);
      expect(JSON.stringify(d.write(messages))).toBe(JSON.stringify(d.sample));
      expect(JSON.stringify(d.write(stored(messages)))).toBe(JSON.stringify(d.sample));
    });
  });

describe('fromAnthropic', () => {
  it('keeps cache_control of a tool_result and of a block inside it', () => {
    const [result] = results(fromAnthropic(ANTHROPIC));
    expect(result?.content?.[0]?.extra).toEqual({ cache_control: { type: 'ephemeral' } });
    expect(result?.extra).toEqual({ cache_control: { type: 'ephemeral' } });
  });
});

describe('multi-part tool outputs', () => {
  it('are written as their new text once a stage has rewritten the output', () => {
    const cut = (messages: Message[]) =>
      messages.map((m) =>
        m.role === 'tool'
          ? { ...m, parts: m.parts.map((p) => (p.type === 'tool-result' ? { ...p, output: 'cut' } : p)) }
          : m,
      );
    const rs = toResponses(cut(fromResponses(RESPONSES)));
    expect(rs[2]?.output).toBe('cut');
    const an = toAnthropic(cut(fromAnthropic(ANTHROPIC)));
    expect(JSON.stringify(an.messages[2]?.content)).toContain('"content":"cut"');
    const gm = toGemini(cut(fromGemini(GEMINI)));
    expect(gm.contents[2]?.parts[0]).toEqual({
      functionResponse: { id: 'fc1', name: 'screenshot', response: { result: 'cut' } },
    });
  });

  it('carry their text and images to the other dialects and leave foreign files out', () => {
    const messages = fromAnthropic(ANTHROPIC);
    const chat = toOpenAI(messages).find((m) => m.role === 'tool');
    expect(JSON.stringify(chat?.content)).toMatch(/^\[\{"type":"text","text":"the page".*"image_url"/);
    const out = toResponses(messages).find((i) => i.type === 'function_call_output')!;
    expect((out.output as Array<{ type: string }>).map((c) => c.type)).toEqual(['input_text', 'input_image']);
    expect(JSON.stringify([chat, out])).not.toContain('document');
  });

  it('go to Anthropic with a data: URL screenshot as a base64 image (Anthropic takes http URLs only)', () => {
    const shot = fromResponses(RESPONSES);
    const result = toAnthropic(shot).messages[2]!.content as Array<{
      content: Array<Record<string, unknown>>;
    }>;
    expect(result[0]!.content[1]!.source).toEqual({ type: 'base64', media_type: 'image/png', data: PNG });
  });
});
