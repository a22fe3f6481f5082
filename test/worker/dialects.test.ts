import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

const sample = (name: string) =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, `../fixtures/dialects/${name}`), 'utf8'));
const RESPONSES = sample('responses-agent-loop.json') as { instructions: string; input: unknown[] };
const GEMINI = sample('gemini-3-parallel-calls.json').request as {
  systemInstruction: { parts: unknown[] };
  contents: unknown[];
};

let w: RunningWorker;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker();
  api = client(w, await w.createKey('acme'));
});
afterAll(async () => {
  await w?.dispose();
});

describe('sessions in the Responses and Gemini formats', () => {
  it('appends Responses items with their instructions and prepares them back unchanged', async () => {
    await api.post('/v1/sessions', { id: 'rs', budget: { contextWindow: 200000 } });
    const append = await api.post('/v1/sessions/rs/messages', {
      format: 'responses',
      system: RESPONSES.instructions,
      messages: RESPONSES.input,
    });
    expect(append.status).toBe(201);
    const res = await api.post('/v1/sessions/rs/prepare', { dialect: 'responses', system: 'Memory: none.' });
    expect(res.status).toBe(200);
    expect(res.body.dialect).toBe('responses');
    expect(res.body.messages).toEqual(RESPONSES.input);
    expect(res.body.instructions).toBe(`${RESPONSES.instructions}\n\nMemory: none.`);
  });

  it('appends Gemini contents and prepares them back unchanged, thought signatures included', async () => {
    await api.post('/v1/sessions', { id: 'gm', budget: { contextWindow: 200000 } });
    const append = await api.post('/v1/sessions/gm/messages', {
      format: 'gemini',
      system: GEMINI.systemInstruction.parts,
      messages: GEMINI.contents,
    });
    expect(append.status).toBe(201);
    const res = await api.post('/v1/sessions/gm/prepare', { dialect: 'gemini' });
    expect(res.status).toBe(200);
    expect(res.body.messages).toEqual(GEMINI.contents);
    // The conversation's own system instruction first; ctxkit's system prompt (here the recall of the
    // other session) after it.
    expect(res.body.systemInstruction.parts[0]).toEqual(GEMINI.systemInstruction.parts[0]);
  });

  it('answers 400 naming what is wrong in a Responses item or a Gemini part', async () => {
    await api.post('/v1/sessions', { id: 'bad' });
    const rs = await api.post('/v1/sessions/bad/messages', {
      format: 'responses',
      messages: [{ type: 42, id: 'ws_1' }],
    });
    expect(rs.status).toBe(400);
    expect(JSON.stringify(rs.body)).toContain('messages[0].type');
    const gm = await api.post('/v1/sessions/bad/messages', {
      format: 'gemini',
      messages: [{ role: 'model', parts: [{ text: 'a', functionCall: { name: 'x' } }] }],
    });
    expect(gm.status).toBe(400);
    expect(JSON.stringify(gm.body)).toContain('contents[0].parts[0]');
    const sys = await api.post('/v1/sessions/bad/messages', {
      format: 'responses',
      system: [{ type: 'text', text: 'x' }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(sys.status).toBe(400);
    expect(JSON.stringify(sys.body)).toContain('instructions as a string');
  });
});
