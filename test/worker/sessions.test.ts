import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, neutralUser } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker();
  api = client(w, await w.createKey('acme'));
});
afterAll(async () => {
  await w?.dispose();
});

const roles = (messages: Array<{ role: string }>) => messages.map((m) => m.role);

describe('POST /v1/sessions', () => {
  it('creates a session with its settings', async () => {
    const res = await api.post('/v1/sessions', {
      id: 's1',
      title: 'first',
      project: 'demo',
      preset: 'default',
      budget: { contextWindow: 32000 },
    });
    expect(res.status).toBe(201);
    expect([
      res.body.session.id,
      res.body.session.title,
      res.body.session.project,
      res.body.session.lastSeq,
    ]).toEqual(['s1', 'first', 'demo', 0]);
    expect(res.body.settings).toEqual({ preset: 'default', budget: { contextWindow: 32000 } });
  });

  it('gives an id when none is asked for', async () => {
    const res = await api.post('/v1/sessions');
    expect(res.status).toBe(201);
    expect(res.body.session.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 409 when the id is taken', async () => {
    const res = await api.post('/v1/sessions', { id: 's1' });
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
  });

  it('answers 400 naming the field when the preset config is invalid', async () => {
    const res = await api.post('/v1/sessions', { id: 'bad-config', config: { nosuchsection: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_config');
    expect((await api.get('/v1/sessions/bad-config')).status).toBe(404);
  });

  it('answers 400 naming the smallest window when the window leaves nothing after the reserve', async () => {
    const res = await api.post('/v1/sessions', {
      id: 'tiny-window',
      preset: 'kosmokrator',
      budget: { contextWindow: 16000 },
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_config']);
    expect(res.body.error.message).toContain('smallest that works is 16001');
    expect((await api.get('/v1/sessions/tiny-window')).status).toBe(404);
  });
});

describe('GET /v1/sessions', () => {
  it('lists the tenant sessions, filtered by project', async () => {
    const all = await api.get('/v1/sessions');
    expect(all.body.sessions.map((s: { id: string }) => s.id)).toContain('s1');
    const demo = await api.get('/v1/sessions?project=demo');
    expect(demo.body.sessions.map((s: { id: string }) => s.id)).toEqual(['s1']);
  });

  it('reads one session', async () => {
    const res = await api.get('/v1/sessions/s1');
    expect([res.status, res.body.session.title]).toEqual([200, 'first']);
  });
});

describe('POST /v1/sessions/:session/messages', () => {
  it('appends OpenAI messages with session ids', async () => {
    const res = await api.post('/v1/sessions/s1/messages', {
      format: 'openai',
      messages: [
        { role: 'user', content: 'List the files' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.ts\nb.ts' },
        { role: 'assistant', content: 'Two files.' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.appended).toEqual([
      { seq: 1, id: 'm1' },
      { seq: 2, id: 'm2' },
      { seq: 3, id: 'm3' },
      { seq: 4, id: 'm4' },
    ]);
    expect(res.body.lastSeq).toBe(4);
  });

  it('appends an Anthropic request, tool results becoming tool messages', async () => {
    const res = await api.post('/v1/sessions/s1/messages', {
      format: 'anthropic',
      messages: [
        { role: 'user', content: 'Read a.ts' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.ts' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: 'export const a = 1;' }],
        },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.appended.map((a: { seq: number }) => a.seq)).toEqual([5, 6, 7]);
  });

  it('appends native messages and keeps their ids', async () => {
    const res = await api.post('/v1/sessions/s1/messages', {
      messages: [
        neutralUser('u-native', 'Thanks'),
        { role: 'assistant', parts: [{ type: 'text', text: 'Welcome.' }] },
      ],
    });
    expect(res.body.appended).toEqual([
      { seq: 8, id: 'u-native' },
      { seq: 9, id: 'm9' },
    ]);
  });

  it('answers 409 when a native id is already in the session', async () => {
    const res = await api.post('/v1/sessions/s1/messages', { messages: [neutralUser('u-native', 'again')] });
    expect([res.status, res.body.error.path]).toEqual([409, 'messages[0].id']);
  });

  it('reads the log back after a seq', async () => {
    const res = await api.get('/v1/sessions/s1/messages?after=7');
    expect(
      res.body.messages.map((r: { seq: number; message: { id: string } }) => [r.seq, r.message.id]),
    ).toEqual([
      [8, 'u-native'],
      [9, 'm9'],
    ]);
  });
});

describe('POST /v1/sessions/:session/prepare', () => {
  it('renders Anthropic messages with the system prompt', async () => {
    const res = await api.post('/v1/sessions/s1/prepare', { dialect: 'anthropic', system: 'You are terse.' });
    expect(res.status).toBe(200);
    expect(roles(res.body.messages)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(res.body.anthropicSystem).toContain('You are terse.');
    expect([res.body.dialect, res.body.estimate.level]).toEqual(['anthropic', 'ok']);
    expect(res.body.reports.length).toBeGreaterThan(0);
  });

  it('renders OpenAI messages with the system message first', async () => {
    const res = await api.post('/v1/sessions/s1/prepare', { dialect: 'openai', system: 'You are terse.' });
    expect(roles(res.body.messages).slice(0, 4)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(res.body.messages[0].content).toContain('You are terse.');
  });

  it('injects long-term memories of the project into the system prompt', async () => {
    await api.post('/v1/memories', {
      type: 'decision',
      title: 'Style',
      content: 'Use tabs in a.ts',
      project: 'demo',
    });
    await api.post('/v1/sessions', { id: 'with-memory', project: 'demo' });
    await api.post('/v1/sessions/with-memory/messages', {
      messages: [neutralUser('q', 'How do I indent a.ts?')],
    });
    const res = await api.post('/v1/sessions/with-memory/prepare', { system: 'Base.' });
    expect(res.body.system).toContain('Base.');
    expect(res.body.system).toContain('Use tabs in a.ts');
    expect(roles(res.body.messages)).toEqual(['user']);
  });

  it('answers 404 for an unknown session', async () => {
    const res = await api.post('/v1/sessions/nope/prepare', {});
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
  });
});

describe('GET /v1/sessions/:session/stats', () => {
  it("reports 000's /context figures, tokens and level", async () => {
    const res = await api.get('/v1/sessions/s1/stats');
    expect(res.status).toBe(200);
    expect(res.body.context.messages).toBe(9);
    expect(res.body.context.roles).toEqual({ system: 0, user: 3, assistant: 4, tool: 2 });
    expect(res.body.context.characters).toBeGreaterThan(40);
    expect(res.body.context.tokens).toBeGreaterThan(0);
    expect(res.body.context.level).toBe('ok');
    expect(res.body.log.messages).toBe(9);
    expect(res.body.compaction).toEqual({ running: false, interruptedAt: null });
  });
});

describe('POST /v1/sessions/:session/compact', () => {
  it('compacts with focus instructions and keeps the full log', async () => {
    const res = await api.post('/v1/sessions/s1/compact', { instructions: 'Keep file names.' });
    expect(res.status).toBe(200);
    expect(res.body.reports.map((r: { stage: string }) => r.stage).length).toBeGreaterThan(0);
    const log = await api.get('/v1/sessions/s1/messages');
    expect(log.body.messages).toHaveLength(9);
  });

  it('keeps the summary as a working compaction memory of the project (002)', async () => {
    const res = await api.get('/v1/memories?type=compaction&project=demo');
    expect(res.body.memories).toHaveLength(1);
    const m = res.body.memories[0];
    expect([m.class, m.project, m.expiresAt - m.createdAt]).toEqual(['working', 'demo', 14 * 86_400_000]);
  });
});

describe('POST /v1/sessions/:session/overflow', () => {
  it('recovers from a context-overflow error and says whether to retry', async () => {
    const res = await api.post('/v1/sessions/s1/overflow', {
      error: 'prompt is too long: 210000 tokens > 200000 maximum',
      dialect: 'openai',
    });
    expect(res.status).toBe(200);
    expect(typeof res.body.retry).toBe('boolean');
    expect(res.body.reports.length).toBeGreaterThan(0);
  });

  it('skips recovery when the error is not an overflow', async () => {
    const res = await api.post('/v1/sessions/s1/overflow', { error: 'rate limited' });
    expect([res.status, res.body.retry]).toEqual([200, false]);
  });
});

describe('POST /v1/sessions/:session/clear', () => {
  it('empties the context and keeps the log', async () => {
    await api.post('/v1/sessions', { id: 'to-clear' });
    await api.post('/v1/sessions/to-clear/messages', {
      messages: [neutralUser('a', 'one'), neutralUser('b', 'two')],
    });
    const res = await api.post('/v1/sessions/to-clear/clear');
    expect([res.status, res.body.cleared]).toEqual([200, true]);
    const stats = await api.get('/v1/sessions/to-clear/stats');
    expect([stats.body.context.messages, stats.body.log.messages]).toEqual([0, 2]);
  });

  it('purges the log when asked', async () => {
    await api.post('/v1/sessions/to-clear/clear', { purge: true });
    const stats = await api.get('/v1/sessions/to-clear/stats');
    expect(stats.body.log.messages).toBe(0);
  });
});

describe('DELETE /v1/sessions/:session', () => {
  it('deletes the session, then answers 404', async () => {
    await api.post('/v1/sessions', { id: 'doomed' });
    expect((await api.delete('/v1/sessions/doomed')).status).toBe(204);
    expect((await api.get('/v1/sessions/doomed')).status).toBe(404);
    expect((await api.delete('/v1/sessions/doomed')).status).toBe(404);
  });
});
