import { describe, expect, it } from 'vitest';
import { fromClaudeCodeJsonl } from '../../../src/cli/transcripts/claude-code.ts';
import { detectFormat, parseTranscript } from '../../../src/cli/transcripts/load-transcript.ts';

const line = (o: unknown) => JSON.stringify(o);
const base = { isSidechain: false, userType: 'external', sessionId: 's1', version: '2.1.39', cwd: '/p' };
const jsonl = [
  line({ type: 'file-history-snapshot', messageId: 'x', snapshot: {} }),
  line({
    ...base,
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    message: { role: 'user', content: 'list the files' },
  }),
  line({
    ...base,
    type: 'assistant',
    uuid: 'a1',
    parentUuid: 'u1',
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-opus-4-6',
      content: [{ type: 'thinking', thinking: 'ls it', signature: 'sig' }],
      usage: { input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 9 },
    },
  }),
  line({
    ...base,
    type: 'assistant',
    uuid: 'a2',
    parentUuid: 'a1',
    message: {
      id: 'msg_1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
    },
  }),
  line({ ...base, type: 'progress', uuid: 'p1', data: { type: 'hook_progress' } }),
  line({
    ...base,
    type: 'user',
    uuid: 'r1',
    parentUuid: 'a2',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.py\nb.py', is_error: false }],
    },
    toolUseResult: { stdout: 'a.py\nb.py', stderr: '' },
  }),
  line({
    ...base,
    type: 'assistant',
    uuid: 'a3',
    parentUuid: 'r1',
    message: {
      id: 'msg_1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/p/a.py' } }],
    },
  }),
  line({
    ...base,
    type: 'user',
    uuid: 'r2',
    parentUuid: 'a3',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'print(1)' }] },
      ],
    },
  }),
  line({
    ...base,
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'c1',
    content: 'Conversation compacted',
    compactMetadata: { trigger: 'auto', preTokens: 167000 },
  }),
  line({
    ...base,
    type: 'user',
    uuid: 'u2',
    isCompactSummary: true,
    message: { role: 'user', content: 'This session is being continued…' },
  }),
  line({
    ...base,
    type: 'user',
    uuid: 'u3',
    isMeta: true,
    message: { role: 'user', content: '<local-command-caveat>…</local-command-caveat>' },
  }),
  line({ ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: 'list the files' } }),
  line({
    ...base,
    type: 'assistant',
    uuid: 's1',
    isSidechain: true,
    message: { id: 'msg_9', role: 'assistant', content: [{ type: 'text', text: 'sub-agent' }] },
  }),
  line({ type: 'summary', summary: 'Listing files', leafUuid: 'u3' }),
].join('\n');

describe('fromClaudeCodeJsonl', () => {
  it('merges the lines of one assistant reply and keeps each call before its result when blocks arrive split', () => {
    const t = fromClaudeCodeJsonl(jsonl);
    expect(t.messages.map((m) => `${m.role}:${m.id}`)).toEqual([
      'user:u1',
      'assistant:a1',
      'tool:r1',
      'tool:r2',
      'user:u2',
      'user:u3',
    ]);
    expect(t.messages[1]!.parts.map((p) => p.type)).toEqual(['reasoning', 'tool-call', 'tool-call']);
  });

  it('names tool results after their calls and joins text-block content when results arrive', () => {
    const t = fromClaudeCodeJsonl(jsonl);
    const results = t.messages.filter((m) => m.role === 'tool').flatMap((m) => m.parts);
    expect(results.map((p) => (p.type === 'tool-result' ? [p.name, p.output] : []))).toEqual([
      ['Bash', 'a.py\nb.py'],
      ['Read', 'print(1)'],
    ]);
  });

  it('keeps isMeta / isCompactSummary, reports the compact boundary and skips sidechains, duplicates and non-conversation lines', () => {
    const t = fromClaudeCodeJsonl(jsonl);
    expect(t.messages.find((m) => m.id === 'u2')?.meta).toMatchObject({
      isCompactSummary: true,
      kind: 'summary',
    });
    expect(t.messages.find((m) => m.id === 'u3')?.meta).toMatchObject({ isMeta: true });
    expect(t.events).toEqual([expect.objectContaining({ type: 'compact_boundary', line: 9 })]);
    expect(t.skipped).toMatchObject({
      'file-history-snapshot': 1,
      progress: 1,
      summary: 1,
      duplicate: 1,
      assistant: 1,
    });
    expect(t.sessionId).toBe('s1');
  });

  it('carries the reported usage into the merged assistant message', () => {
    const usage = fromClaudeCodeJsonl(jsonl).messages[1]!.usage;
    expect([usage?.inputTokens, usage?.cacheReadTokens, usage?.outputTokens]).toEqual([3, 100, 9]);
  });

  it('throws naming the line when a line is not JSON', () => {
    expect(() => fromClaudeCodeJsonl(`${line({ type: 'user' })}\n{oops`)).toThrow(/line 2/);
  });
});

describe('detectFormat', () => {
  it('tells every accepted format apart when given its text', () => {
    expect(detectFormat(jsonl)).toBe('claude-code');
    expect(detectFormat(JSON.stringify([{ role: 'user', content: 'hi' }]))).toBe('openai');
    expect(detectFormat(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }))).toBe('openai');
    expect(
      detectFormat(JSON.stringify({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }] })),
    ).toBe('anthropic');
    expect(
      detectFormat(
        JSON.stringify({
          messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }],
        }),
      ),
    ).toBe('anthropic');
    expect(detectFormat(JSON.stringify({ id: 'r', agent: 'x', model: 'm', messages: [] }))).toBe(
      'trajectory',
    );
    expect(
      detectFormat(JSON.stringify([{ id: 'm0', role: 'user', parts: [{ type: 'text', text: 'hi' }] }])),
    ).toBe('neutral');
  });
});

describe('parseTranscript', () => {
  it('returns neutral messages with the system prompt first when reading Anthropic JSON', () => {
    const t = parseTranscript(
      JSON.stringify({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('keeps the trajectory header for the way out when reading the normalized trajectory format', () => {
    const t = parseTranscript(
      JSON.stringify({ id: 'r1', agent: 'a', model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect([t.format, t.header?.id, t.messages.length]).toEqual(['trajectory', 'r1', 1]);
  });
});
