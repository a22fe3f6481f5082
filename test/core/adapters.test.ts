import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/index.ts';
import {
  checkInvariants,
  fromAnthropic,
  fromOpenAI,
  parseMessages,
  toAnthropic,
  toOpenAI,
} from '../../src/core/index.ts';

const openaiConversation = [
  { role: 'system', content: 'You are helpful.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this image?' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } },
      { id: 'c2', type: 'function', function: { name: 'lookup', arguments: '{"q":"b"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'result a' },
  { role: 'tool', tool_call_id: 'c2', content: 'boom', meta: { is_error: true } },
  { role: 'assistant', content: 'Done.', reasoning: 'thinking…' },
];

describe('fromOpenAI', () => {
  it('maps roles, images, parallel calls, errors and reasoning to neutral parts', () => {
    const messages = fromOpenAI(openaiConversation);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(messages[1]!.parts.map((p) => p.type)).toEqual(['text', 'image']);
    expect(messages[2]!.parts).toEqual([
      { type: 'tool-call', id: 'c1', name: 'lookup', args: { q: 'a' } },
      { type: 'tool-call', id: 'c2', name: 'lookup', args: { q: 'b' } },
    ]);
    expect(messages[4]!.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'c2',
      output: 'boom',
      isError: true,
    });
    expect(messages[5]!.parts.map((p) => p.type)).toEqual(['reasoning', 'text']);
  });

  it('names the JSON path when tool arguments are not JSON', () => {
    const bad = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{nope' } }],
      },
    ];
    expect(() => fromOpenAI(bad)).toThrow(
      /messages\[0\]\.tool_calls\[0\]\.function\.arguments: tool arguments are not valid JSON/,
    );
  });

  it('names the JSON path when a message has no role', () => {
    expect(() => fromOpenAI([{ content: 'hi' }])).toThrow(/messages\[0\]\.role/);
  });

  it('names the path of a content part with no type', () => {
    expect(() => fromOpenAI([{ role: 'user', content: [{ url: 'x' }] }])).toThrow(
      /messages\[0\]\.content\[0\]\.type/,
    );
  });
});

describe('toOpenAI', () => {
  it('round-trips every field of an OpenAI conversation', () => {
    const back = toOpenAI(fromOpenAI(openaiConversation), { trajectory: true });
    expect(back).toEqual([
      { role: 'system', content: 'You are helpful.' },
      openaiConversation[1],
      openaiConversation[2],
      openaiConversation[3],
      openaiConversation[4],
      { role: 'assistant', content: 'Done.', reasoning: 'thinking…' },
    ]);
  });
});

const anthropicRequest = {
  system: 'Be brief.',
  messages: [
    { role: 'user', content: 'Read two files' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.ts' } },
        { type: 'tool_use', id: 't2', name: 'read', input: { path: 'b.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'A' },
        { type: 'tool_result', tool_use_id: 't2', content: 'no such file', is_error: true },
        { type: 'text', text: 'and summarise' },
      ],
    },
    { role: 'assistant', content: 'Summary.' },
  ],
};

describe('fromAnthropic', () => {
  it('splits a user message with results and text into a tool message and a user message', () => {
    const messages = fromAnthropic(anthropicRequest);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'assistant']);
    expect(
      messages[3]!.parts.map((p) => (p.type === 'tool-result' ? [p.callId, p.isError ?? false] : p.type)),
    ).toEqual([
      ['t1', false],
      ['t2', true],
    ]);
    expect(messages[2]!.parts[0]).toEqual({ type: 'reasoning', text: 'plan', signature: 'sig' });
  });

  it('names the JSON path of a known block with the wrong fields', () => {
    expect(() => fromAnthropic({ messages: [{ role: 'user', content: [{ type: 'text' }] }] })).toThrow(
      /messages\[0\]\.content\[0\]/,
    );
    expect(() => fromAnthropic({ messages: [{ role: 'user', content: [{ kind: 'text' }] }] })).toThrow(
      /messages\[0\]\.content\[0\]/,
    );
  });

  it('carries the blocks it does not read (documents, server tools) as they came, and writes them back', () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
          { type: 'text', text: 'read it' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          { type: 'text', text: 'done' },
        ],
      },
    ];
    const neutral = fromAnthropic(messages);
    expect(
      neutral.map((m) => m.parts.map((p) => (p.type === 'opaque' ? `${p.source}:${p.kind}` : p.type))),
    ).toEqual([
      ['anthropic:document', 'text'],
      ['anthropic:server_tool_use', 'anthropic:web_search_tool_result', 'text'],
    ]);
    expect(checkInvariants(neutral, { dialect: 'anthropic' })).toEqual([]);
    expect(toAnthropic(neutral, { cacheControl: false }).messages).toEqual(messages);
    // Another dialect leaves them out rather than sending what it cannot express.
    expect(toOpenAI(neutral)[0]).toEqual({ role: 'user', content: 'read it' });
  });

  it('keeps extra keys of tool_use and thinking blocks (cache_control, caller) and writes them back byte for byte', () => {
    const messages = [
      { role: 'user', content: 'run it' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'sig', x_trace: 'a' },
          { type: 'redacted_thinking', data: 'blob', x_trace: 'b' },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'query',
            input: { sql: 'select 1' },
            caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' },
          },
          {
            type: 'tool_use',
            id: 'toolu_2',
            name: 'ls',
            input: {},
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '1' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'a.txt' },
        ],
      },
    ];
    const neutral = fromAnthropic(messages);
    expect(neutral[1]!.parts.map((p) => p.extra)).toEqual([
      { x_trace: 'a' },
      { x_trace: 'b' },
      { caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' } },
      { cache_control: { type: 'ephemeral' } },
    ]);
    expect(JSON.stringify(toAnthropic(neutral).messages)).toBe(JSON.stringify(messages));
    expect(parseMessages(neutral)).toEqual(neutral);
    // Chat Completions takes no such keys on its tool calls: they stay with the Anthropic form.
    expect(JSON.stringify(toOpenAI(neutral))).not.toMatch(/caller|cache_control/);
  });
});

describe('toAnthropic', () => {
  it('round-trips an Anthropic request', () => {
    expect(toAnthropic(fromAnthropic(anthropicRequest), { cacheControl: false })).toEqual(anthropicRequest);
  });

  it('turns a mid-conversation system message into user text and keeps alternation', () => {
    const messages: Message[] = [
      { id: 'a', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { id: 'b', role: 'system', parts: [{ type: 'text', text: 'summary' }] },
    ];
    expect(toAnthropic(messages, { cacheControl: false }).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: '[System] summary' },
        ],
      },
    ]);
  });
});
