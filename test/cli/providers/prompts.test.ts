import { describe, expect, it } from 'vitest';
import {
  assistant,
  type Message,
  type SummarizeRequest,
  system,
  toolCall,
  toolResult,
  user,
} from '../../../src/core/index.ts';
import {
  CO_CLI_SYSTEM_PROMPT,
  createOpenAISummarizer,
  KOSMOKRATOR_SYSTEM_PROMPT,
  kosmokratorTranscript,
  TRANSCRIPT_TRUNCATED_LINE,
  tiancaiTranscript,
} from '../../../src/providers/index.ts';
import { useFakeOpenAIServer } from '../../support/fake-openai-server.ts';

const server = useFakeOpenAIServer();

const summarizer = () =>
  createOpenAISummarizer({
    baseURL: server.baseURL,
    apiKey: 'k',
    model: 'big',
    summarizationModel: 'small',
    maxRetries: 0,
  });

async function sent(request: SummarizeRequest, answer = 'the summary') {
  server.script({ kind: 'answer', content: answer });
  const result = await summarizer().summarize(request);
  const body = server.requests.at(-1)!.body as {
    model: string;
    messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
    temperature?: number;
    max_tokens?: number;
    tools?: unknown;
  };
  return {
    body,
    result,
    roles: body.messages.map((m) => m.role),
    last: body.messages.at(-1)!.content as string,
  };
}

const history: Message[] = [
  user('Please add retries to src/net/fetch.ts. Never touch the tests.', { id: 'u1' }),
  assistant(
    'I will read it.',
    [toolCall('c1', 'read_file', { path: 'src/net/fetch.ts', content: 'x'.repeat(300) })],
    { id: 'a1' },
  ),
  toolResult('c1', 'read_file', 'export async function get() {}', { id: 't1' }),
  assistant('Added retries with backoff.', [], { id: 'a2' }),
];

describe('kosmokrator prompt', () => {
  it('sends a JSON-only system prompt and the transcript when the preset is kosmokrator', async () => {
    const { body, roles, last } = await sent({
      purpose: 'compaction',
      preset: 'kosmokrator',
      messages: history,
    });
    expect(roles).toEqual(['system', 'user']);
    expect(body.messages[0]!.content).toBe(KOSMOKRATOR_SYSTEM_PROMPT);
    expect(KOSMOKRATOR_SYSTEM_PROMPT).toContain('## Relevant Files');
    expect(last).toContain('[user]: Please add retries');
    expect(last).toContain('[assistant → tool_call]: read_file(path: src/net/fetch.ts, content: [...])');
    expect(last).toContain('[tool_result]: export async function get() {}');
    expect(body.tools).toBeUndefined();
  });

  it('sends the stage transcript when the request carries one', async () => {
    const { last } = await sent({
      purpose: 'compaction',
      preset: 'default',
      messages: history,
      transcript: '[user]: from the stage',
    });
    expect(last).toContain('<conversation>\n[user]: from the stage\n</conversation>');
  });

  it('parses summary and memories when the answer is JSON', async () => {
    const answer = JSON.stringify({
      summary: '## Goal\nretries',
      memories: [
        { type: 'decision', title: 'Backoff', content: 'exponential, 3 tries' },
        { type: 'note', title: 'x', content: 'dropped: unknown type' },
      ],
    });
    const { result } = await sent(
      { purpose: 'compaction', preset: 'kosmokrator', messages: history },
      answer,
    );
    expect(result.summary).toBe('## Goal\nretries');
    expect(result.memories?.map((m) => [m.type, m.title, m.class])).toEqual([
      ['decision', 'Backoff', 'durable'],
    ]);
  });

  it('drops the oldest lines first when the transcript is over the cap', () => {
    const long = Array.from({ length: 50 }, (_, i) => user(`message ${i} ${'y'.repeat(40)}`));
    const out = kosmokratorTranscript(long, 600).split('\n');
    expect(out[0]).toBe(TRANSCRIPT_TRUNCATED_LINE);
    expect(out.at(-1)).toContain('message 49');
    expect(out.join('\n')).not.toContain('message 0 ');
  });
});

describe('update prompt', () => {
  it('asks to update the previous summary and keep constraints verbatim when one is given', async () => {
    const { last } = await sent({
      purpose: 'compaction',
      preset: 'kosmokrator',
      messages: history,
      previousSummary: '## Goal\nold goal',
      instructions: 'focus on the network layer',
    });
    expect(last).toContain('UPDATE it');
    expect(last).toContain('<previous-summary>\n## Goal\nold goal\n</previous-summary>');
    expect(last).toContain('as completed');
    expect(last).toContain('verbatim');
    expect(last).toContain('Additional focus for this summary: focus on the network layer');
  });

  it('says nothing about updating when there is no previous summary', async () => {
    const { last } = await sent({ purpose: 'compaction', preset: 'tiancai', messages: history });
    expect(last).not.toContain('previous-summary');
  });
});

describe('tiancai prompts', () => {
  it('serialises the checkpoint transcript with real newlines when the preset is tiancai', async () => {
    const msgs = [
      ...history,
      assistant('', [toolCall('c2', 'grep', { q: 'retry' })]),
      toolResult('c2', 'grep', 'z'.repeat(5000)),
    ];
    const { last, roles } = await sent({ purpose: 'compaction', preset: 'tiancai', messages: msgs });
    expect(roles).toEqual(['system', 'user']);
    expect(last).toContain('[User]: Please add retries');
    expect(last).toContain('[Assistant tool calls]: read_file({"path":"src/net/fetch.ts"');
    expect(last).toContain('\n\n[Tool result read_file]: export async function get() {}\n\n');
    expect(last).not.toContain('\\n');
    const grep = tiancaiTranscript(msgs)
      .split('\n\n')
      .find((b) => b.startsWith('[Tool result grep]'))!;
    expect(grep).toContain('\n... (truncated) ...\n');
    expect(
      Array.from(grep.replace('[Tool result grep]: ', '').replace('\n... (truncated) ...\n', '')),
    ).toHaveLength(1800);
  });

  it('clips the input to 12000 runes and the answer to 1200 when one tool result is summarised', async () => {
    const { last, result } = await sent(
      {
        purpose: 'tool-result',
        preset: 'tiancai',
        messages: [toolResult('c9', 'bash', 'q'.repeat(20_000), { isError: true })],
      },
      'a'.repeat(3000),
    );
    expect(last).toContain('Tool: bash\nCall ID: c9\nStatus: error\nOutput:\n');
    expect(last).toContain(`${'q'.repeat(8000)}\n... (truncated) ...\n${'q'.repeat(4000)}`);
    expect(last).not.toContain('q'.repeat(8001));
    expect(result.summary).toHaveLength(1200);
  });

  it('says "(empty output)" when the tool output is empty', async () => {
    const { last } = await sent({
      purpose: 'tool-result',
      preset: 'tiancai',
      messages: [toolResult('c1', 'ls', '')],
    });
    expect(last).toContain('Output:\n(empty output)');
  });

  it('clips each item to 4000 runes and the answer to 2200 when a batch is summarised', async () => {
    const msgs = [toolResult('b1', 'read', 'r'.repeat(9000)), toolResult('b2', 'grep', 'g')];
    const { last, result } = await sent(
      { purpose: 'tool-batch', preset: 'tiancai', messages: msgs },
      'b'.repeat(5000),
    );
    expect(last).toContain('### 1. Tool: read\nCall ID: b1');
    expect(last).toContain('### 2. Tool: grep\nCall ID: b2\nStatus: ok\nOutput:\ng');
    expect(last).not.toContain('r'.repeat(2667));
    expect(result.summary).toHaveLength(2200);
  });
});

describe('co-cli prompt', () => {
  it('passes the dropped messages as chat history with paired results when the purpose is sliding-window', async () => {
    // The window split orphaned t0's result and left c5 without one.
    const dropped = [
      toolResult('c0', 'read_file', 'orphan', { id: 't0' }),
      ...history,
      assistant('', [toolCall('c5', 'bash', { cmd: 'ls' })], { id: 'a5' }),
    ];
    const { body, roles, last } = await sent({
      purpose: 'sliding-window',
      preset: 'co-cli',
      messages: dropped,
    });
    expect(body.messages[0]).toEqual({ role: 'system', content: CO_CLI_SYSTEM_PROMPT });
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'assistant', 'tool', 'user']);
    expect(body.messages[3]!.tool_call_id).toBe('c1');
    expect(body.messages[6]!.tool_call_id).toBe('c5');
    expect(last).toContain('file paths and tool names');
    expect(last).toContain('pending tasks');
    expect(body.tools).toBeUndefined();
    expect(body.model).toBe('small');
  });

  it('uses the primary model and the co-cli prompt when /compact runs with the co-cli preset', async () => {
    const { body } = await sent({
      purpose: 'manual-compact',
      preset: 'co-cli',
      messages: [system('sys'), ...history],
    });
    expect(body.model).toBe('big');
    expect(body.messages[0]!.content).toBe(CO_CLI_SYSTEM_PROMPT);
    expect(body.messages[1]).toEqual({ role: 'system', content: 'sys' });
  });
});

describe('cowagent prompt', () => {
  it('sends 用户/助手 lines clipped to 500 chars with temperature 0 and max_tokens 500 when flushing memory', async () => {
    const msgs = [
      user('记住我喜欢简短的回答'),
      assistant('好的'),
      user('L'.repeat(800)),
      toolResult('c1', 'x', 'skipped'),
    ];
    const { body, last } = await sent(
      { purpose: 'memory-flush', preset: 'cowagent', messages: msgs },
      '[DAILY]\n- 聊天\n[MEMORY]\n',
    );
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(500);
    expect(body.messages[0]!.content).toContain('[DAILY]');
    expect(body.messages[0]!.content).toContain('[MEMORY]');
    expect(body.messages[0]!.content).toContain('无');
    expect(last).toContain('用户: 记住我喜欢简短的回答\n助手: 好的\n用户: ');
    expect(last).toContain(`用户: ${'L'.repeat(500)}`);
    expect(last).not.toContain('L'.repeat(501));
    expect(last).not.toContain('skipped');
  });

  it('returns the daily part and the memory lines when the answer has both sections', async () => {
    const { result } = await sent(
      { purpose: 'memory-flush', preset: 'cowagent', messages: [user('hi there')] },
      '[DAILY]\n- 讨论了重试策略\n[MEMORY]\n- 用户喜欢简短的回答\n- 项目使用 TypeScript\n',
    );
    expect(result.summary).toBe('- 讨论了重试策略');
    expect(result.memories?.map((m) => [m.type, m.content])).toEqual([
      ['user', '用户喜欢简短的回答'],
      ['project', '项目使用 TypeScript'],
    ]);
  });
});

describe('kosmokrator two-call variant', () => {
  const twoCall = () =>
    createOpenAISummarizer({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'big',
      summarizationModel: 'small',
      maxRetries: 0,
      memoryExtraction: 'second-call',
    });

  it('extracts memories from the summary in a second call when configured', async () => {
    server.script(
      { kind: 'answer', content: '## Goal\nretries', usage: { prompt_tokens: 100, completion_tokens: 20 } },
      {
        kind: 'answer',
        content: '[{"type": "user", "title": "Tests", "content": "never touch the tests"}]',
        usage: { prompt_tokens: 30, completion_tokens: 10 },
      },
    );
    const result = await twoCall().summarize({
      purpose: 'compaction',
      preset: 'kosmokrator',
      messages: history,
    });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages[1].content).toBe('## Goal\nretries');
    expect(result.summary).toBe('## Goal\nretries');
    expect(result.memories?.map((m) => m.title)).toEqual(['Tests']);
    expect(result.usage).toEqual({ inputTokens: 130, outputTokens: 30 });
  });

  it('keeps the summary with no memories when the memory call fails', async () => {
    server.script({ kind: 'answer', content: '## Goal\nretries' }, { kind: 'status', status: 400 });
    const result = await twoCall().summarize({ purpose: 'compaction', preset: 'default', messages: history });
    expect(result.summary).toBe('## Goal\nretries');
    expect(result.memories).toEqual([]);
  });
});
