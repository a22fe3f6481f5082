import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
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

describe('session routes', () => {
  it('creates a session with its settings when posting to /v1/sessions', async () => {
    const res = await api.post('/v1/sessions', {
      id: 's1',
      title: 'first',
      preset: 'default',
      budget: { contextWindow: 32000 },
    });
    expect(res.status).toBe(201);
    expect([res.body.session.id, res.body.session.title, res.body.session.lastSeq]).toEqual([
      's1',
      'first',
      0,
    ]);
  });

  it('appends OpenAI messages and gives them session ids', async () => {
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
  });

  it('prepares the next context in the requested dialect', async () => {
    const res = await api.post('/v1/sessions/s1/prepare', { dialect: 'anthropic', system: 'You are terse.' });
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(res.body.anthropicSystem).toContain('You are terse.');
    expect(res.body.estimate.level).toBe('ok');
    expect(Array.isArray(res.body.reports)).toBe(true);
  });

  it('reports 000-style stats', async () => {
    const res = await api.get('/v1/sessions/s1/stats');
    expect(res.status).toBe(200);
    expect(res.body.context.messages).toBe(4);
    expect(res.body.context.roles).toEqual({ system: 0, user: 1, assistant: 2, tool: 1 });
  });
});
