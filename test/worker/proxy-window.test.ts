/**
 * An upstream whose real window is smaller than the model table says (a local vLLM, Ollama or
 * llama.cpp server behind a gpt-4o name): the proxy reads the window from the server's own
 * context-length wording and retries within it; a session keeps the learned window.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, fromAnthropic, fromOpenAI } from '../../src/core/index.ts';
import type { FakeProvider, WindowWording } from '../support/fake-provider-server.ts';
import { client, type Loose } from './support/client.ts';
import type { RunningWorker } from './support/harness.ts';
import { anthropicHistory, openAIHistory } from './support/proxy-history.ts';
import { useProxyWorker } from './support/proxy-worker.ts';

const OPENAI = '/v1/proxy/openai/chat/completions';
const ANTHROPIC = '/v1/proxy/anthropic/v1/messages';
/** The server's real window, in its own tokens (the fake counts body bytes / 4). */
const LIMIT = 8000;

let w: RunningWorker;
let fake: FakeProvider;
let key: string;

useProxyWorker(
  't1',
  () => ({}),
  (r) => ({ w, fake, key } = r),
);

function post(path: string, json: unknown, headers: Record<string, string> = {}) {
  const auth = path === ANTHROPIC ? { headers: { 'x-api-key': key, ...headers } } : { key, headers };
  return w.request(path, { method: 'POST', ...auth, json });
}

/** A paragraph of discussion: no single message is large, so capping big outputs frees nothing. */
const talk = (i: number) =>
  `Point ${i}: the handler in src/module${i % 17}/file.ts retries twice before it gives up, ` +
  `and the caller in src/app${i % 5}.ts logs the failure with its request id ${i * 7919} so that ` +
  `the dashboard can group repeated failures by route and by the version that served them.`;

/** 30 turns of file reads then 160 messages of discussion: about 16K tokens by the server's count. */
const history = () => [
  { role: 'system', content: 'You are a careful code reader.' },
  ...openAIHistory(30, 6),
  ...Array.from({ length: 160 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: talk(i) })),
  { role: 'user', content: 'Summarize every module.' },
];

describe('the proxy under a window smaller than the model table says', () => {
  it.each<WindowWording>(['openai', 'vllm', 'openrouter', 'ollama', 'llamacpp'])(
    'retries within the window the %s wording states, and the retry fits',
    async (wording) => {
      fake.script({ kind: 'window', limit: LIMIT, wording }, { kind: 'window', limit: LIMIT, wording });
      const res = await post(OPENAI, { model: 'gpt-4o', messages: history() });
      const body = (await res.json()) as Loose;
      expect(fake.requests[0]!.bytes / 4).toBeGreaterThan(LIMIT * 1.5);
      expect([res.status, res.headers.get('x-ctxkit-retried')]).toEqual([200, '1']);
      expect(body.choices[0].message.content).toBe('ok');
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests[1]!.bytes / 4).toBeLessThanOrEqual(LIMIT);
      const sent = fromOpenAI(fake.requests[1]!.body.messages);
      expect(checkInvariants(sent, { dialect: 'openai' })).toEqual([]);
      // The question the model answers went through verbatim.
      expect(fake.requests[1]!.body.messages.at(-1)).toEqual({
        role: 'user',
        content: 'Summarize every module.',
      });
    },
  );

  it('retries within the window the Anthropic wording states', async () => {
    fake.script(
      { kind: 'window', limit: LIMIT, wording: 'anthropic' },
      { kind: 'window', limit: LIMIT, wording: 'anthropic' },
    );
    const messages = [
      ...anthropicHistory(30, 6),
      ...Array.from({ length: 160 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: talk(i) })),
      { role: 'user', content: 'Summarize every module.' },
    ];
    const res = await post(ANTHROPIC, { model: 'claude-sonnet-4-6', max_tokens: 256, messages });
    expect([res.status, res.headers.get('x-ctxkit-retried')]).toEqual([200, '1']);
    expect(fake.requests[1]!.bytes / 4).toBeLessThanOrEqual(LIMIT);
    expect(checkInvariants(fromAnthropic(fake.requests[1]!.body.messages), { dialect: 'anthropic' })).toEqual(
      [],
    );
  });

  it('keeps the learned window for the session: the next call fits at the first attempt', async () => {
    const session = { 'x-ctxkit-session': 'small-server' };
    fake.script(
      { kind: 'window', limit: LIMIT, wording: 'vllm' },
      { kind: 'window', limit: LIMIT, wording: 'vllm', text: 'first answer' },
    );
    const first = await post(OPENAI, { model: 'gpt-4o', messages: history() }, session);
    expect([first.status, first.headers.get('x-ctxkit-retried')]).toEqual([200, '1']);
    const journal = await client(w, key).get(first.headers.get('x-ctxkit-journal')!);
    expect(journal.body.call.overflow).toMatchObject({ retry: true, window: expect.any(Number) });
    expect(journal.body.call.overflow.window).toBeLessThan(LIMIT * 1.2);
    // The answer to the retried call is logged like any other (it was dropped before).
    const rows = await until(
      async () => (await client(w, key).get('/v1/sessions/small-server/messages')).body.messages,
    );
    expect(rows.at(-1).message.parts).toEqual([{ type: 'text', text: 'first answer' }]);

    fake.reset();
    fake.script({ kind: 'window', limit: LIMIT, wording: 'vllm', text: 'second answer' });
    const more = [
      ...history(),
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'Now list the exports of module 3.' },
    ];
    const second = await post(OPENAI, { model: 'gpt-4o', messages: more }, session);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ctxkit-retried')).toBeNull();
    expect(((await second.json()) as Loose).choices[0].message.content).toBe('second answer');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.bytes / 4).toBeLessThanOrEqual(LIMIT);
  });

  it('passes the error through when the wording states no window and recovery cannot fit it', async () => {
    fake.script({ kind: 'status', status: 400, message: 'bad request: unknown field' });
    const res = await post(OPENAI, { model: 'gpt-4o', messages: history() });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-ctxkit-retried')).toBeNull();
    expect(fake.requests).toHaveLength(1);
  });
});

async function until(read: () => Promise<Loose[]>): Promise<Loose[]> {
  for (let i = 0; i < 50; i++) {
    const rows = await read();
    if (rows.at(-1)?.message.role === 'assistant') return rows;
    await new Promise((r) => setTimeout(r, 20));
  }
  return read();
}
