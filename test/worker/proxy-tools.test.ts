/**
 * The proxy answering the recall tools itself (`x-ctxkit-tools`), in workerd against the fake provider:
 * a scripted `recall` or `reread` call is run against the session's archive and the upstream called
 * again, so the client sees only the final answer — whole and streamed, Chat Completions and Anthropic
 * Messages; mixed answers pass through; a looping model is stopped.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';
import { anthropicHistory, openAIHistory, responsesHistory } from './support/proxy-history.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';
const RESPONSES = '/v1/proxy/openai/responses';
const FACT = 'DEPLOY NOTE: the release token is BLUE-HERON-42.';

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

beforeAll(async () => {
  fake = await startFakeProvider();
  w = await startWorker({
    bindings: {
      UPSTREAM_OPENAI_BASE_URL: fake.openaiBase,
      UPSTREAM_ANTHROPIC_BASE_URL: fake.anthropicBase,
      UPSTREAM_OPENAI_API_KEY: 'sk-test',
      UPSTREAM_ANTHROPIC_API_KEY: 'sk-ant-test',
      PROXY_TOOL_ROUNDS: '2',
    },
  });
  key = await w.createKey('t1');
});
afterAll(async () => {
  await w?.dispose();
  await fake?.close();
});
beforeEach(() => fake.reset());

/** A long agent history whose first tool output holds `FACT`, then the user's question. */
function openAIAsk(question: string): Loose[] {
  const h = openAIHistory(40) as Loose[];
  h[2].content = `${FACT}\n${h[2].content}`;
  return [...h.slice(0, 159), { role: 'user', content: question }];
}
function anthropicAsk(question: string): Loose[] {
  const h = anthropicHistory(40) as Loose[];
  h[2].content[0].content = `${FACT}\n${h[2].content[0].content}`;
  return [...h.slice(0, 159), { role: 'user', content: question }];
}

function post(path: string, json: unknown, headers: Record<string, string>) {
  return w.request(path, { method: 'POST', key, json, headers });
}

function toolHeaders(session: string, extra: Record<string, string> = {}) {
  return { 'x-ctxkit-session': session, 'x-ctxkit-window': '16384', 'x-ctxkit-tools': 'on', ...extra };
}

/** The model calls `recall('release token')` (call `id`), then answers `text`. */
function recallThen(id: string, text: string) {
  fake.script(
    { kind: 'answer', toolCalls: [{ id, name: 'recall', args: { query: 'release token' } }] },
    { kind: 'answer', text },
  );
}

const toolNames = (tools: Loose[]) => tools.map((t) => t.function?.name ?? t.name);

describe('the proxy tool loop (x-ctxkit-tools), OpenAI Chat Completions', () => {
  it('answers a recall call itself and returns only the final answer when the answer is whole', async () => {
    recallThen('c1', 'The release token is BLUE-HERON-42.');
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: openAIAsk('What is the release token?') },
      toolHeaders('pt-oa-1'),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Loose;
    expect(body.choices[0].message.content).toBe('The release token is BLUE-HERON-42.');
    expect(body.choices[0].message.tool_calls).toBeUndefined();
    expect(res.headers.get('x-ctxkit-tool-rounds')).toBe('1');
    // The call's record says so too, once the answer is logged (after the client took it).
    let upstream: Loose;
    for (let i = 0; i < 50 && !upstream; i++) {
      upstream = (await client(w, key).get(res.headers.get('x-ctxkit-journal')!)).body.call?.upstream;
      if (!upstream) await new Promise((r) => setTimeout(r, 50));
    }
    expect(upstream).toMatchObject({ status: 200, logged: true, toolRounds: 1 });
    expect(fake.requests).toHaveLength(2);
    expect(toolNames(fake.requests[0]!.body.tools)).toEqual(['recall', 'reread', 'remember']);
    // The first request no longer holds the fact: compaction took it out of the context.
    expect(JSON.stringify(fake.requests[0]!.body.messages)).not.toContain('BLUE-HERON-42');
    const second = fake.requests[1]!.body.messages as Loose[];
    expect(second.at(-2).tool_calls.map((c: Loose) => c.function.name)).toEqual(['recall']);
    expect(second.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(second.at(-1).content).toContain('BLUE-HERON-42');
  });

  it('streams only the final answer when the tool round was streamed', async () => {
    recallThen('c2', 'Streamed: BLUE-HERON-42.');
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', stream: true, messages: openAIAsk('What is the release token, streamed?') },
      toolHeaders('pt-oa-2'),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('"recall"');
    expect(text).not.toContain('tool_calls');
    expect(text).toContain('data: [DONE]');
    const deltas = [...text.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(deltas).toBe('Streamed: BLUE-HERON-42.');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body.messages.at(-1).content).toContain('BLUE-HERON-42');
  });

  /** A first call that leaves the fact out of the context, then a call whose model rereads `pick()`'s ref. */
  async function rereadRound(session: string, pick: () => Promise<string | undefined>) {
    fake.script({ kind: 'answer', text: 'ok' });
    const messages = openAIAsk('Go on.');
    const first = await post(OPENAI, { model: 'gpt-4o', messages }, toolHeaders(session));
    expect(first.status).toBe(200);
    await first.text();
    const ref = await pick();
    expect(ref).toMatch(/^[ms][0-9a-f]{12}$/);
    fake.reset();
    fake.script(
      { kind: 'answer', toolCalls: [{ id: 'c3', name: 'reread', args: { ref } }] },
      { kind: 'answer', text: 'read it' },
    );
    const next = [
      ...messages,
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'Reread that.' },
    ];
    const res = await post(OPENAI, { model: 'gpt-4o', messages: next }, toolHeaders(session));
    expect(((await res.json()) as Loose).choices[0].message.content).toBe('read it');
    const result = fake.requests[1]!.body.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'c3' });
    return result.content as string;
  }

  it('rereads a ref of the session’s archive and sends the original back upstream', async () => {
    const content = await rereadRound('pt-oa-3', async () => {
      const found = await client(w, key).post('/v1/sessions/pt-oa-3/recall', { query: 'release token' });
      return found.body.hits[0].ref;
    });
    // The whole original: the fact and the file's last line, never cut or summarized.
    expect(content).toContain(FACT);
    expect(content).toContain('src/module0/file.ts:60:');
  });

  it('rereads the ref a stub or summary it was sent names, as a model that never saw ctxkit would', async () => {
    const content = await rereadRound('pt-oa-hint', async () => {
      const sent = JSON.stringify(fake.requests[0]!.body.messages);
      return /reread\('([ms][0-9a-f]{12})'\)/.exec(sent)?.[1];
    });
    expect(content).not.toMatch(/^Unknown ref/);
    expect(content).toMatch(/src\/module\d+\/file\.ts/);
  });

  it('streams a text answer before it ends once its text passed the hold bound', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    fake.script({
      kind: 'events',
      events: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: `EARLY ${'a'.repeat(1500)}` }),
        chunk({ content: ' LATE' }),
        chunk({}, 'stop'),
        'data: [DONE]\n\n',
      ],
      after: (i) => (i === 1 ? released : undefined),
    });
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', stream: true, messages: openAIAsk('Long answer?') },
      toolHeaders('pt-oa-early'),
    );
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const timeout = Date.now() + 10_000;
    while (!seen.includes('EARLY') && Date.now() < timeout)
      seen += decoder.decode((await reader.read()).value ?? new Uint8Array());
    expect(seen).toContain('EARLY');
    expect(seen).not.toContain('LATE');
    release();
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      seen += decoder.decode(r.value);
    }
    expect(seen).toContain('LATE');
    expect(seen).toContain('data: [DONE]');
  });

  it('passes an answer that mixes the client’s tools with these through unchanged', async () => {
    fake.script({
      kind: 'answer',
      toolCalls: [
        { id: 'c4', name: 'recall', args: { query: 'x' } },
        { id: 'c5', name: 'read_file', args: { path: 'a.ts' } },
      ],
    });
    const tools = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }];
    const res = await post(
      OPENAI,
      { model: 'gpt-4o', messages: openAIAsk('Mixed?'), tools },
      toolHeaders('pt-oa-4'),
    );
    const body = (await res.json()) as Loose;
    expect(body.choices[0].message.tool_calls.map((c: Loose) => c.function.name)).toEqual([
      'recall',
      'read_file',
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(res.headers.get('x-ctxkit-tool-rounds')).toBeNull();
  });

  it('ends a model that keeps calling the tools with a 502 in the provider’s shape after PROXY_TOOL_ROUNDS', async () => {
    const loop = {
      kind: 'answer' as const,
      toolCalls: [{ id: 'cl', name: 'recall', args: { query: 'again' } }],
    };
    fake.script(loop, loop, loop, loop, loop);
    const res = await post(OPENAI, { model: 'gpt-4o', messages: openAIAsk('Loop?') }, toolHeaders('pt-oa-5'));
    expect(res.status).toBe(502);
    const body = (await res.json()) as Loose;
    expect(body.error.message).toContain('PROXY_TOOL_ROUNDS');
    // Two rounds answered (the bound), the last one asked to answer without tools.
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[2]!.body.tool_choice).toBe('none');
    expect(fake.requests[1]!.body.tool_choice).toBeUndefined();
  });

  it('answers 400 naming what is wrong: no session, an unknown tool, a tool of the same name', async () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    const noSession = await post(OPENAI, body, { 'x-ctxkit-tools': 'on' });
    expect(noSession.status).toBe(400);
    expect(((await noSession.json()) as Loose).error.path).toBe('headers.x-ctxkit-tools');
    const unknown = await post(OPENAI, body, toolHeaders('pt-oa-6', { 'x-ctxkit-tools': 'recall,forget' }));
    expect(((await unknown.json()) as Loose).error).toMatchObject({
      code: 'invalid_input',
      path: 'headers.x-ctxkit-tools',
    });
    const clash = await post(
      OPENAI,
      { ...body, tools: [{ type: 'function', function: { name: 'reread', parameters: {} } }] },
      toolHeaders('pt-oa-6'),
    );
    expect(((await clash.json()) as Loose).error).toMatchObject({ code: 'invalid_input', path: 'tools[0]' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the proxy tool loop (x-ctxkit-tools), Anthropic Messages', () => {
  it('answers a recall call itself and returns only the final answer when the answer is whole', async () => {
    fake.script(
      {
        kind: 'answer',
        text: 'Let me look.',
        toolCalls: [{ id: 'toolu_r', name: 'recall', args: { query: 'release token' } }],
      },
      { kind: 'answer', text: 'It is BLUE-HERON-42.' },
    );
    const res = await post(
      ANTHROPIC,
      { model: 'claude-sonnet-4-5', max_tokens: 512, messages: anthropicAsk('Release token?') },
      toolHeaders('pt-an-1'),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Loose;
    expect(body.content).toEqual([{ type: 'text', text: 'It is BLUE-HERON-42.' }]);
    expect(fake.requests).toHaveLength(2);
    expect(toolNames(fake.requests[0]!.body.tools)).toEqual(['recall', 'reread', 'remember']);
    const second = fake.requests[1]!.body.messages as Loose[];
    expect(second.at(-2).content.map((b: Loose) => b.type)).toEqual(['text', 'tool_use']);
    const result = second.at(-1).content[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_r' });
    expect(JSON.stringify(result.content)).toContain('BLUE-HERON-42');
  });

  it('streams only the final answer when the tool round was streamed', async () => {
    // A preamble before the call, as Claude writes one: held, never shown to the client.
    fake.script(
      {
        kind: 'answer',
        text: 'Let me look that up.',
        toolCalls: [{ id: 'toolu_s', name: 'recall', args: { query: 'release token' } }],
      },
      { kind: 'answer', text: 'Streamed BLUE-HERON-42.' },
    );
    const res = await post(
      ANTHROPIC,
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 512,
        stream: true,
        messages: anthropicAsk('Release token, streamed?'),
      },
      toolHeaders('pt-an-2'),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('tool_use');
    expect(text).not.toContain('Let me look');
    expect(text).toContain('message_stop');
    const deltas = [...text.matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(deltas).toContain('Streamed BLUE-HERON-42.');
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('BLUE-HERON-42');
  });
});

describe('the proxy tool loop (x-ctxkit-tools), OpenAI Responses', () => {
  function responsesAsk(question: string): Loose[] {
    const h = responsesHistory(40) as Loose[];
    h[2].output = `${FACT}\n${h[2].output}`;
    return [...h.slice(0, 159), { role: 'user', content: question }];
  }

  it('answers a recall call itself, whole and streamed', async () => {
    for (const stream of [false, true]) {
      fake.reset();
      recallThen('fc_1', 'Responses: BLUE-HERON-42.');
      const res = await post(
        RESPONSES,
        { model: 'gpt-4o', stream, input: responsesAsk(`Token (stream ${stream})?`) },
        toolHeaders(`pt-rs-${stream}`),
      );
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('Responses: BLUE-HERON-42.');
      expect(text).not.toContain('function_call');
      expect(fake.requests).toHaveLength(2);
      expect(toolNames(fake.requests[0]!.body.tools)).toEqual(['recall', 'reread', 'remember']);
      const input = fake.requests[1]!.body.input as Loose[];
      expect(input.at(-2)).toMatchObject({ type: 'function_call', name: 'recall' });
      expect(input.at(-1)).toMatchObject({ type: 'function_call_output' });
      expect(JSON.stringify(input.at(-1))).toContain('BLUE-HERON-42');
    }
  });
});

describe('the proxy tool loop and the session', () => {
  it('turns recall on for a session made without it, and logs only what the client saw', async () => {
    fake.script({ kind: 'answer', text: 'first' });
    const messages = openAIAsk('Plain call.');
    const plain = await post(
      OPENAI,
      { model: 'gpt-4o', messages },
      { 'x-ctxkit-session': 'pt-on', 'x-ctxkit-window': '16384' },
    );
    await plain.text();
    const api = client(w, key);
    expect((await api.post('/v1/sessions/pt-on/recall', { query: 'x' })).status).toBe(409);
    fake.script(
      {
        kind: 'answer',
        toolCalls: [{ id: 'c9', name: 'remember', args: { text: 'The CI runner is named KESTREL.' } }],
      },
      { kind: 'answer', text: 'noted' },
    );
    const next = [
      ...messages,
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'Remember the runner.' },
    ];
    const res = await post(OPENAI, { model: 'gpt-4o', messages: next }, toolHeaders('pt-on'));
    expect(((await res.json()) as Loose).choices[0].message.content).toBe('noted');
    expect((await api.post('/v1/sessions/pt-on/recall', { query: 'CI runner' })).body.text).toContain(
      'KESTREL',
    );
    // The log holds the client's turn and the final answer, not the proxy's round.
    const log = (await api.get('/v1/sessions/pt-on/messages')).body.messages as Loose[];
    expect(log.some((r) => JSON.stringify(r.message).includes('"remember"'))).toBe(false);
    expect(log.at(-1).message.parts[0].text).toBe('noted');
    // The client's next call brings back what it saw: nothing diverges, only its new message is appended.
    fake.script({ kind: 'answer', text: 'again' });
    const after = [...next, { role: 'assistant', content: 'noted' }, { role: 'user', content: 'Thanks.' }];
    const third = await post(OPENAI, { model: 'gpt-4o', messages: after }, toolHeaders('pt-on'));
    await third.text();
    expect(third.headers.get('x-ctxkit-diverged')).toBeNull();
    expect(third.headers.get('x-ctxkit-appended')).toBe('1');
  });
});
