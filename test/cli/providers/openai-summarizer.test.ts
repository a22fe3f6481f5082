import { beforeEach, describe, expect, it } from 'vitest';
import {
  assistant,
  isCtxError,
  type SummarizeRequest,
  toolCall,
  toolResult,
  user,
} from '../../../src/core/index.ts';
import { createOpenAISummarizer, type OpenAISummarizerOptions } from '../../../src/providers/index.ts';
import { useFakeOpenAIServer } from '../../support/fake-openai-server.ts';

const server = useFakeOpenAIServer();
let sleeps: number[];

beforeEach(() => {
  sleeps = [];
});

function make(options: Partial<OpenAISummarizerOptions> = {}) {
  return createOpenAISummarizer({
    baseURL: server.baseURL,
    apiKey: 'test-key',
    model: 'primary-model',
    summarizationModel: 'cheap-model',
    timeoutMs: 2000,
    maxRetries: 2,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    ...options,
  });
}

const conversation = [
  user('Fix the login bug in src/auth.ts'),
  assistant('Looking.', [toolCall('c1', 'read_file', { path: 'src/auth.ts' })]),
  toolResult('c1', 'read_file', 'export function login() {}'),
  assistant('Fixed it.'),
];

const request = (over: Partial<SummarizeRequest> = {}): SummarizeRequest => ({
  purpose: 'compaction',
  preset: 'kosmokrator',
  messages: conversation,
  ...over,
});

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('createOpenAISummarizer', () => {
  it('uses the summarization model and offers no tools when the purpose is automatic', async () => {
    server.script({ kind: 'answer', content: '{"summary": "## Goal\\nfix login", "memories": []}' });
    const result = await make().summarize(request());
    const body = server.requests[0]!.body;
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(body.model).toBe('cheap-model');
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(result.summary).toBe('## Goal\nfix login');
    expect(result.model).toBe('cheap-model');
  });

  it('uses the primary model when the purpose is manual-compact', async () => {
    server.script({ kind: 'answer', content: 'summary' });
    await make().summarize(request({ purpose: 'manual-compact', preset: 'co-cli' }));
    expect(server.requests[0]!.body.model).toBe('primary-model');
  });

  it('uses the primary model for everything when no summarization model is set', async () => {
    server.script({ kind: 'answer', content: 'summary' });
    await make({ summarizationModel: undefined as unknown as string }).summarize(
      request({ purpose: 'sliding-window' }),
    );
    expect(server.requests[0]!.body.model).toBe('primary-model');
  });

  it('returns the provider usage when the answer reports it', async () => {
    server.script({ kind: 'answer', content: 'text', usage: { prompt_tokens: 120, completion_tokens: 30 } });
    const result = await make().summarize(request({ preset: 'tiancai' }));
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
  });

  it('estimates usage when the provider reports none', async () => {
    server.script({ kind: 'answer', content: 'a summary of forty characters, roughly.', usage: null });
    const result = await make().summarize(request({ preset: 'tiancai' }));
    expect(result.usage!.outputTokens).toBe(10);
    expect(result.usage!.inputTokens).toBeGreaterThan(50);
  });

  it('accumulates the deltas and reads usage from the last chunk when streaming', async () => {
    server.script({
      kind: 'answer',
      content: '{"summary": "streamed summary", "memories": []}',
      chunks: 5,
      usage: { prompt_tokens: 9, completion_tokens: 4 },
    });
    const result = await make({ stream: true }).summarize(request());
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(result.summary).toBe('streamed summary');
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 4 });
  });

  it('retries with exponential backoff when the server answers 500', async () => {
    server.script(
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503 },
      { kind: 'answer', content: 'third time' },
    );
    const result = await make({ initialRetryDelayMs: 100 }).summarize(request({ preset: 'tiancai' }));
    expect(result.summary).toBe('third time');
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
  });

  it('waits what retry-after asks when the server answers 429', async () => {
    server.script(
      { kind: 'status', status: 429, headers: { 'retry-after': '3' } },
      { kind: 'answer', content: 'after wait' },
    );
    const result = await make().summarize(request({ preset: 'tiancai' }));
    expect(result.summary).toBe('after wait');
    expect(sleeps).toEqual([3000]);
  });

  it('prefers retry-after-ms and caps the delay when the server asks too much', async () => {
    server.script(
      { kind: 'status', status: 429, headers: { 'retry-after-ms': '250', 'retry-after': '9' } },
      { kind: 'status', status: 429, headers: { 'retry-after': '3600' } },
      { kind: 'answer', content: 'ok' },
    );
    await make({ maxRetryDelayMs: 5000 }).summarize(request({ preset: 'tiancai' }));
    expect(sleeps).toEqual([250, 5000]);
  });

  it('throws provider_error naming the status when retries run out', async () => {
    server.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const error = await failure(make({ maxRetries: 1 }).summarize(request({ preset: 'tiancai' })));
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(error.message).toMatch(/HTTP 500.*after 1 retries/);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry when the server answers 400', async () => {
    server.script({ kind: 'status', status: 400, message: 'bad request' });
    const error = await failure(make().summarize(request({ preset: 'tiancai' })));
    expect(error.message).toContain('HTTP 400');
    expect(server.requests).toHaveLength(1);
  });

  it('throws provider_error naming the timeout when the server hangs', async () => {
    server.script({ kind: 'hang' });
    const error = await failure(make({ timeoutMs: 150 }).summarize(request({ preset: 'tiancai' })));
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(error.message).toContain('no answer within 150 ms (timeout)');
    expect(server.requests).toHaveLength(1);
  });

  it('throws provider_error naming the timeout when a stream stalls', async () => {
    server.script({ kind: 'stall-stream', first: 'partial' });
    const error = await failure(
      make({ timeoutMs: 150, stream: true }).summarize(request({ preset: 'tiancai' })),
    );
    expect(error.message).toContain('(timeout)');
  });

  it('throws provider_error when the body is invalid JSON', async () => {
    server.script({ kind: 'invalid-json' });
    const error = await failure(make().summarize(request({ preset: 'tiancai' })));
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(error.message).toContain('malformed answer');
  });

  it('throws provider_error when the body has no choices', async () => {
    server.script({ kind: 'no-choices' });
    const error = await failure(make().summarize(request({ preset: 'tiancai' })));
    expect(error.message).toContain('no "choices"');
  });

  it.each([
    ['null content', { kind: 'empty' as const }, false],
    ['"" content', { kind: 'empty' as const, text: true }, false],
    ['an empty stream', { kind: 'empty' as const }, true],
  ])('throws provider_error when the answer has %s', async (_label, reply, stream) => {
    server.script(reply);
    const error = await failure(make({ stream }).summarize(request({ preset: 'tiancai' })));
    expect(isCtxError(error, 'provider_error')).toBe(true);
    expect(error.message).toContain('empty answer');
  });

  it('throws provider_error without retrying when the caller aborts', async () => {
    server.script({ kind: 'hang' });
    const controller = new AbortController();
    const pending = make({ timeoutMs: 5000 }).summarize(
      request({ preset: 'tiancai', signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 30);
    const error = await failure(pending);
    expect(error.message).toContain('aborted by the caller');
    expect(sleeps).toEqual([]);
  });

  it('clips the summary when maxOutputChars is given', async () => {
    server.script({ kind: 'answer', content: 'x'.repeat(500) });
    const result = await make().summarize(request({ preset: 'tiancai', maxOutputChars: 100 }));
    expect(result.summary).toHaveLength(100);
  });

  it('drops <think> blocks when a reasoning model puts them in the content', async () => {
    server.script({ kind: 'answer', content: '<think>hmm, let me see</think>\nthe real summary' });
    const result = await make().summarize(request({ preset: 'tiancai' }));
    expect(result.summary).toBe('the real summary');
  });

  it('throws provider_error when the content is only a <think> block', async () => {
    server.script({ kind: 'answer', content: '<think>endless' });
    const error = await failure(make().summarize(request({ preset: 'tiancai' })));
    expect(error.message).toContain('empty answer');
  });

  it('sends max_completion_tokens when configured for newer OpenAI models', async () => {
    server.script({ kind: 'answer', content: '[DAILY]\n- x' });
    await make({ maxTokensParam: 'max_completion_tokens' }).summarize(
      request({ purpose: 'memory-flush', preset: 'cowagent' }),
    );
    expect(server.requests[0]!.body.max_completion_tokens).toBe(500);
    expect(server.requests[0]!.body).not.toHaveProperty('max_tokens');
  });

  it('throws invalid_config naming the field when an option is bad', () => {
    expect(() => make({ timeoutMs: -5 })).toThrow(/options\.timeoutMs/);
    expect(() => make({ baseURL: 'ftp://x' })).toThrow(/options\.baseURL/);
  });
});

describe('createOpenAISummarizer (streaming faults)', () => {
  it('retries a streamed request when the server answers 429 first', async () => {
    server.script(
      { kind: 'status', status: 429, headers: { 'retry-after': '0.02' } },
      { kind: 'answer', content: 'streamed after wait' },
    );
    const result = await make({ stream: true }).summarize(request({ preset: 'tiancai' }));
    expect(result.summary).toBe('streamed after wait');
    expect(sleeps).toEqual([20]);
    expect(server.requests.map((r) => r.body.stream)).toEqual([true, true]);
  });

  it('estimates usage when a stream carries none', async () => {
    server.script({ kind: 'answer', content: 'abcdefgh', usage: null });
    const result = await make({ stream: true, streamUsage: false }).summarize(request({ preset: 'tiancai' }));
    expect(server.requests[0]!.body).not.toHaveProperty('stream_options');
    expect(result.usage!.outputTokens).toBe(2);
  });

  it('sends a placeholder key when none is configured (Ollama, vLLM)', async () => {
    server.script({ kind: 'answer', content: 'x' });
    await make({ apiKey: undefined as unknown as string }).summarize(request({ preset: 'tiancai' }));
    expect(server.requests[0]!.headers.authorization).toBe('Bearer no-key');
  });
});
