import { describe, expect, it } from 'vitest';
import {
  checkInvariants,
  createChars4Counter,
  fromGemini,
  fromOpenAI,
  fromResponses,
  type JsonValue,
  type Message,
  parseMessages,
  toAnthropic,
  toGemini,
  toOpenAI,
  toResponses,
} from '../../src/core/index.ts';
import { verifiedKey } from '../../src/core/invariants/reasoning.ts';

const PDF = 'JVBERi0xLjQKJcfs';

/** Chat Completions messages the API takes that carry parts with no neutral kind, or extra keys. */
const OPENAI: Array<Record<string, JsonValue>> = [
  {
    role: 'system',
    content: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Read these.', cache_control: { type: 'ephemeral' } },
      { type: 'file', file: { file_id: 'file-abc123' } },
      { type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` } },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      {
        type: 'image_url',
        image_url: { url: 'https://x.test/a.png', detail: 'low' },
        cache_control: { type: 'ephemeral' },
      },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
  },
  {
    role: 'tool',
    tool_call_id: 'c1',
    content: [
      { type: 'text', text: 'the page' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(40_000)}` } },
    ],
  },
];

/** Responses items the API (and the Agents SDK) takes that have no neutral kind. */
const RESPONSES: Array<Record<string, JsonValue>> = [
  { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAB-compacted' },
  {
    role: 'user',
    content: [
      { type: 'input_text', text: 'Look at these' },
      { type: 'input_file', file_id: 'file-abc123' },
      { type: 'input_file', filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` },
      { type: 'input_image', file_id: 'file-img9', detail: 'auto' },
      { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
    ],
  },
  { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'ctxkit' } },
  {
    type: 'computer_call',
    id: 'cu_1',
    call_id: 'call_cu',
    action: { type: 'click', x: 10, y: 20, button: 'left' },
    pending_safety_checks: [],
    status: 'completed',
  },
  {
    type: 'computer_call_output',
    call_id: 'call_cu',
    output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBO' },
  },
  {
    type: 'local_shell_call',
    id: 'lsh_1',
    call_id: 'call_ls',
    status: 'completed',
    action: { type: 'exec', command: ['ls'], env: {} },
  },
  { type: 'local_shell_call_output', id: 'lsh_1', output: 'a.txt' },
  { type: 'shell_call', id: 'sh_1', call_id: 'call_sh', action: { commands: ['pwd'] }, status: 'completed' },
  {
    type: 'shell_call_output',
    call_id: 'call_sh',
    output: [{ stdout: '/w', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
  },
  {
    type: 'apply_patch_call',
    id: 'ap_1',
    call_id: 'call_ap',
    status: 'completed',
    operation: { type: 'update_file', path: 'a.txt', diff: '@@\n-a\n+b' },
  },
  { type: 'apply_patch_call_output', call_id: 'call_ap', status: 'completed', output: 'ok' },
  {
    type: 'tool_search_call',
    id: 'ts_1',
    call_id: 'call_ts',
    arguments: { query: 'weather' },
    status: 'completed',
  },
  { type: 'tool_search_output', call_id: 'call_ts', tools: [] },
  {
    // Key order as the API returns it (the adapter rebuilds message items in this order).
    type: 'message',
    id: 'msg_1',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', annotations: [], text: 'Done.' }],
  },
];

const GEMINI = {
  contents: [
    {
      role: 'user',
      parts: [{ text: 'Summarise' }, { inlineData: { mimeType: 'application/pdf', data: PDF } }],
    },
    { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }] },
    { role: 'model', parts: [{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } }] },
  ],
};

const opaque = (messages: Message[]) => messages.flatMap((m) => m.parts.filter((p) => p.type === 'opaque'));

describe('fromOpenAI', () => {
  it('round-trips file, audio and cache_control parts byte for byte when the API takes them', () => {
    const messages = fromOpenAI(OPENAI);
    expect(JSON.stringify(toOpenAI(messages))).toBe(JSON.stringify(OPENAI));
    expect(opaque(messages).map((p) => p.type === 'opaque' && p.kind)).toEqual([
      'file',
      'file',
      'input_audio',
    ]);
    expect(messages[1]!.parts[0]).toEqual({
      type: 'text',
      text: 'Read these.',
      extra: { cache_control: { type: 'ephemeral' } },
    });
    expect(parseMessages(messages)).toEqual(messages);
  });

  it('reads custom tool calls and keeps a tool call’s extra keys (Gemini’s thought signature), byte for byte', () => {
    const messages = [
      { role: 'user', content: 'patch it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'read', arguments: '{"path":"a.ts"}' },
            extra_content: { google: { thought_signature: 'sig-1' } },
          },
          {
            id: 'c2',
            type: 'custom',
            custom: { name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
      { role: 'tool', tool_call_id: 'c2', content: 'ok' },
    ];
    const neutral = fromOpenAI(messages);
    const [read, patch] = neutral[1]!.parts;
    expect(patch).toMatchObject({
      type: 'tool-call',
      id: 'c2',
      name: 'apply_patch',
      args: '*** Begin Patch\n*** End Patch',
      provider: { openai: { custom: true } },
    });
    // The reasoning rules see the signature riding on the call.
    expect(verifiedKey(read!)).toBe('gemini:tool-call:c1:sig-1');
    expect(checkInvariants(neutral, { dialect: 'openai' })).toEqual([]);
    expect(parseMessages(neutral)).toEqual(neutral);
    expect(JSON.stringify(toOpenAI(neutral))).toBe(JSON.stringify(messages));
    // Anthropic takes no such key on a tool_use block: it stays with the Chat Completions form.
    expect(JSON.stringify(toAnthropic(neutral))).not.toMatch(/extra_content/);
  });

  it('reads a multi-part tool result as parts and counts its image as an image, not as base64 text', () => {
    const [, , , tool] = fromOpenAI(OPENAI);
    const result = tool!.parts[0]!;
    expect(result).toMatchObject({ type: 'tool-result', callId: 'c1', output: 'the page' });
    expect(result.type === 'tool-result' && result.content?.map((c) => c.type)).toEqual(['text', 'image']);
    // chars4: 8 chars of text + 4800 per image → ceil(4808 / 4), not the 40K characters of base64.
    expect(createChars4Counter().countMessage(tool!)).toBe(Math.ceil((8 + 4800) / 4));
  });

  it('writes a multi-part result as its text once a stage has rewritten its output', () => {
    const [, , , tool] = fromOpenAI(OPENAI);
    const result = tool!.parts[0]!;
    if (result.type !== 'tool-result') throw new Error('expected a result');
    const cut: Message = { ...tool!, parts: [{ ...result, output: 'the p…' }] };
    expect(toOpenAI([cut])[0]!.content).toBe('the p…');
  });
});

describe('fromResponses', () => {
  it('passes hosted tool items, compaction items and file parts through byte for byte', () => {
    const messages = fromResponses(RESPONSES);
    expect(JSON.stringify(toResponses(messages))).toBe(JSON.stringify(RESPONSES));
    expect(opaque(messages).map((p) => p.type === 'opaque' && p.kind)).toEqual([
      'compaction',
      'input_file',
      'input_file',
      'input_image',
      'input_audio',
      'web_search_call',
      'computer_call',
      'computer_call_output',
      'local_shell_call',
      'local_shell_call_output',
      'shell_call',
      'shell_call_output',
      'apply_patch_call',
      'apply_patch_call_output',
      'tool_search_call',
      'tool_search_output',
    ]);
    expect(parseMessages(messages)).toEqual(messages);
  });

  it('keeps a hosted call and its output in one message, so that stages move them together', () => {
    const messages = fromResponses(RESPONSES);
    const holder = messages.find((m) =>
      m.parts.some((p) => p.type === 'opaque' && p.kind === 'computer_call'),
    );
    expect(holder?.parts.some((p) => p.type === 'opaque' && p.kind === 'computer_call_output')).toBe(true);
  });

  it('counts an opaque item by the size of its JSON', () => {
    const item = RESPONSES[2]!;
    const [m] = fromResponses([item]);
    expect(createChars4Counter().countMessage(m!)).toBe(Math.ceil(JSON.stringify(item).length / 4));
  });

  it('leaves another dialect’s opaque parts out of the other adapters', () => {
    const messages = fromResponses(RESPONSES);
    const text = JSON.stringify([toOpenAI(messages), toAnthropic(messages), toGemini(messages)]);
    expect(text).not.toMatch(/web_search_call|input_file|compaction/);
  });
});

describe('fromGemini', () => {
  it('round-trips PDF data and code execution parts byte for byte', () => {
    const messages = fromGemini(GEMINI);
    expect(JSON.stringify(toGemini(messages))).toBe(JSON.stringify(GEMINI));
    expect(opaque(messages).map((p) => p.type === 'opaque' && p.kind)).toEqual([
      'inlineData',
      'executableCode',
      'codeExecutionResult',
    ]);
  });
});
