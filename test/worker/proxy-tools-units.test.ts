/**
 * The tool loop's pure pieces: which answers the proxy answers itself (`ownCalls`), how a streamed round
 * is held (`holdRound`), the opt-in header and the definitions in each dialect.
 */

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  CtxError,
  isCtxError,
  type Message,
  RECALL_TOOL_DEFINITIONS,
  RECALL_TOOL_NAMES,
} from '../../src/core/index.ts';
import { anthropicMessages } from '../../src/worker/proxy/anthropic-messages.ts';
import { beginsToolCall, holdRound, textChars } from '../../src/worker/proxy/held-round.ts';
import { openAIChat } from '../../src/worker/proxy/openai-chat.ts';
import {
  answerNow,
  dialectTool,
  proxyToolNames,
  proxyToolRounds,
  withProxyTools,
} from '../../src/worker/proxy/proxy-tools.ts';
import { UpstreamFault } from '../../src/worker/proxy/relay.ts';
import { ownCalls, runCalls } from '../../src/worker/proxy/tool-loop.ts';

const NAMES = new Set(['recall', 'reread', 'remember']);

function assistant(calls: string[], stopReason?: string): Message {
  return {
    id: 'a1',
    role: 'assistant',
    parts: calls.map((name, i) => ({ type: 'tool-call' as const, id: `c${i}`, name, args: {} })),
    ...(stopReason ? { usage: { inputTokens: 1, outputTokens: 1, stopReason } } : {}),
  };
}

function sse(events: unknown[], last = 'data: [DONE]\n\n'): Response {
  const text = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + last;
  return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
}

const hold = (res: Response, holdChars?: number) =>
  holdRound(res, {
    protocol: openAIChat,
    idleMs: 1000,
    abort: new AbortController(),
    maxEventBytes: 1 << 20,
    maxAnswerBytes: 1 << 20,
    ...(holdChars !== undefined ? { holdChars } : {}),
  });

const chunk = (delta: unknown, finish: string | null = null) => ({
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('ownCalls', () => {
  it('returns the calls when every call names one of the tools', () => {
    expect(ownCalls(assistant(['recall', 'reread'], 'tool_calls'), NAMES)?.map((c) => c.name)).toEqual([
      'recall',
      'reread',
    ]);
  });

  it('returns undefined when a call names a client tool, when there is no call, or when the output was cut', () => {
    expect(ownCalls(assistant(['recall', 'read_file']), NAMES)).toBeUndefined();
    expect(ownCalls(assistant([]), NAMES)).toBeUndefined();
    expect(ownCalls(assistant(['recall'], 'length'), NAMES)).toBeUndefined();
    expect(ownCalls(undefined, NAMES)).toBeUndefined();
  });
});

describe('runCalls', () => {
  it('turns a bad argument into an error result naming it and answers every call', async () => {
    const calls = assistant(['recall', 'reread']).parts as Parameters<typeof runCalls>[0];
    const message = await runCalls(
      calls,
      async (name) => {
        if (name === 'reread') throw new CtxError('invalid_input', 'expected a ref', { path: 'reread.ref' });
        return 'found';
      },
      't1',
    );
    expect(message.parts).toEqual([
      { type: 'tool-result', callId: 'c0', output: 'found' },
      { type: 'tool-result', callId: 'c1', output: 'error: reread.ref: expected a ref', isError: true },
    ]);
  });

  it('answers calls past the per-round bound with an error result instead of running them', async () => {
    const calls = assistant(Array.from({ length: 20 }, () => 'recall')).parts as Parameters<
      typeof runCalls
    >[0];
    let ran = 0;
    const message = await runCalls(calls, async () => `${++ran}`, 't2');
    expect(ran).toBe(16);
    expect(message.parts.filter((p) => p.type === 'tool-result' && p.isError)).toHaveLength(4);
  });
});

describe('holdRound', () => {
  it('hands back a round that begins a tool call whole, with its answer', async () => {
    const res = sse([
      chunk({
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'c1', function: { name: 'recall', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":"x"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const held = await hold(res);
    expect(held.kind).toBe('whole');
    if (held.kind !== 'whole') return;
    expect(held.answer?.parts).toMatchObject([
      { type: 'tool-call', id: 'c1', name: 'recall', args: { query: 'x' } },
    ]);
    // Should it be the client's after all, it is relayed from its first byte.
    expect(await held.res.text()).toContain('"recall"');
  });

  it('relays a text answer from its first byte once its text passed the hold bound', async () => {
    const events = Array.from({ length: 50 }, (_, i) => chunk({ content: `word${i} ` }));
    const res = sse([...events, chunk({}, 'stop')]);
    const held = await hold(res, 20);
    expect(held.kind).toBe('relay');
    const text = await held.res.text();
    expect(text.startsWith('data: ')).toBe(true);
    expect(text).toContain('word0 ');
    expect(text).toContain('word49 ');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('relays a round that began a call but ended without its last event (the relay answers the cut)', async () => {
    const res = sse(
      [chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'recall', arguments: '{}' } }] })],
      '',
    );
    expect((await hold(res)).kind).toBe('relay');
  });

  it('ends with a too-large fault when the held round passes the answer bound', async () => {
    const big = chunk({
      tool_calls: [{ index: 0, id: 'c1', function: { name: 'recall', arguments: 'x'.repeat(5000) } }],
    });
    const res = sse([big, big, big]);
    const error = await holdRound(res, {
      protocol: openAIChat,
      idleMs: 1000,
      abort: new AbortController(),
      maxEventBytes: 1 << 20,
      maxAnswerBytes: 8000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamFault);
    expect((error as UpstreamFault).kind).toBe('too-large');
  });
});

describe('textChars', () => {
  it('counts answer text in each dialect and not reasoning', () => {
    const ev = (data: unknown) => ({ event: undefined, data: JSON.stringify(data) });
    expect(textChars('openai', ev(chunk({ content: 'hello' })))).toBe(5);
    expect(textChars('openai', ev(chunk({ reasoning_content: 'long thought' })))).toBe(0);
    expect(
      textChars('anthropic', ev({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'abc' } })),
    ).toBe(3);
    expect(
      textChars(
        'anthropic',
        ev({ type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'abc' } }),
      ),
    ).toBe(0);
    expect(textChars('responses', ev({ type: 'response.output_text.delta', delta: 'abcd' }))).toBe(4);
  });
});

describe('beginsToolCall', () => {
  it('tells a tool call opening in each dialect from text', () => {
    const ev = (data: unknown) => ({ event: undefined, data: JSON.stringify(data) });
    expect(beginsToolCall('openai', ev(chunk({ content: 'hi' })))).toBe(false);
    expect(
      beginsToolCall('anthropic', ev({ type: 'content_block_start', content_block: { type: 'tool_use' } })),
    ).toBe(true);
    expect(
      beginsToolCall('anthropic', ev({ type: 'content_block_start', content_block: { type: 'text' } })),
    ).toBe(false);
    expect(
      beginsToolCall(
        'responses',
        ev({ type: 'response.output_item.added', item: { type: 'function_call' } }),
      ),
    ).toBe(true);
  });
});

describe('proxyToolNames', () => {
  const h = (v: string) => new Headers({ 'x-ctxkit-tools': v });
  it('turns on every tool with on, a list with a list, none when absent or off', () => {
    expect(proxyToolNames(h('on'), 's')).toEqual(['recall', 'reread', 'remember']);
    expect(proxyToolNames(h('reread, recall'), 's')).toEqual(['reread', 'recall']);
    expect(proxyToolNames(new Headers(), 's')).toBeUndefined();
    expect(proxyToolNames(h('off'), undefined)).toBeUndefined();
  });

  it('throws invalid_input naming the header for an unknown name or a call without a session', () => {
    for (const [v, s] of [
      ['recall,forget', 's'],
      ['on', undefined],
    ] as const) {
      try {
        proxyToolNames(h(v), s);
        expect.unreachable();
      } catch (error) {
        expect(isCtxError(error, 'invalid_input') && error.path).toBe('headers.x-ctxkit-tools');
      }
    }
  });
});

describe('withProxyTools', () => {
  it('adds the definitions after the client’s tools in the dialect’s shape, and refuses n > 1', () => {
    const request = anthropicMessages.parse({
      model: 'c',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
    });
    const tooled = withProxyTools(request, 'anthropic', ['reread']);
    expect((tooled.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([
      'read_file',
      'reread',
    ]);
    expect(tooled.tools).toEqual(tooled.body.tools);
    expect(request.body.tools).toHaveLength(1);
    const chat = openAIChat.parse({ model: 'g', n: 2, messages: [{ role: 'user', content: 'hi' }] });
    expect(() => withProxyTools(chat, 'openai', ['recall'])).toThrow(/proxy answers one choice/);
  });
});

describe('dialectTool and answerNow', () => {
  it('writes a definition in each dialect and asks for an answer without tools', () => {
    const d = {
      name: 'recall' as const,
      description: 'd',
      parameters: {
        type: 'object' as const,
        properties: {},
        required: [],
        additionalProperties: false as const,
      },
    };
    expect(dialectTool('openai', d)).toMatchObject({ type: 'function', function: { name: 'recall' } });
    expect(dialectTool('anthropic', d)).toMatchObject({ name: 'recall', input_schema: { type: 'object' } });
    expect(dialectTool('responses', d)).toMatchObject({ type: 'function', name: 'recall' });
    const r = openAIChat.parse({ model: 'g', messages: [{ role: 'user', content: 'hi' }] });
    expect(answerNow(r, 'openai').body.tool_choice).toBe('none');
    expect(answerNow(r, 'anthropic').body.tool_choice).toEqual({ type: 'none' });
  });
});

describe('the definitions’ cost', () => {
  it('adds 250–270 o200k tokens to a request in each dialect (docs/proxy.md)', () => {
    for (const dialect of ['openai', 'anthropic', 'responses'] as const) {
      const defs = RECALL_TOOL_NAMES.map((n) => dialectTool(dialect, RECALL_TOOL_DEFINITIONS[n]));
      const tokens = countTokens(JSON.stringify(defs));
      expect(tokens).toBeGreaterThanOrEqual(250);
      expect(tokens).toBeLessThanOrEqual(270);
    }
  });
});

describe('proxyToolRounds', () => {
  it('reads PROXY_TOOL_ROUNDS and refuses a value out of bounds naming it', () => {
    expect(proxyToolRounds({} as never)).toBe(4);
    expect(proxyToolRounds({ PROXY_TOOL_ROUNDS: '2' } as never)).toBe(2);
    expect(() => proxyToolRounds({ PROXY_TOOL_ROUNDS: '0' } as never)).toThrow(/1 to 16/);
  });
});
