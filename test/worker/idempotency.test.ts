import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let key: string;

beforeAll(async () => {
  w = await startWorker();
  key = await w.createKey('acme');
});
afterAll(async () => {
  await w?.dispose();
});

async function post(path: string, json: unknown, idem?: string) {
  const res = await w.request(path, {
    method: 'POST',
    key,
    json,
    ...(idem !== undefined ? { headers: { 'idempotency-key': idem } } : {}),
  });
  const body = JSON.parse(await res.text());
  return { status: res.status, body, replayed: res.headers.get('idempotent-replayed') };
}

async function messageCount(session: string): Promise<number> {
  const res = await w.request(`/v1/sessions/${session}/messages`, { key });
  return (JSON.parse(await res.text()) as { messages: unknown[] }).messages.length;
}

const openaiTurn = {
  format: 'openai',
  messages: [
    { role: 'user', content: 'Deploy the billing service' },
    { role: 'assistant', content: 'Deployed.' },
  ],
};

describe('Idempotency-Key', () => {
  it('stores a retried append once and answers the retry with the first result', async () => {
    await post('/v1/sessions', { id: 'retry' });
    const first = await post('/v1/sessions/retry/messages', openaiTurn, 'append-1');
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const again = await post('/v1/sessions/retry/messages', openaiTurn, 'append-1');
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await messageCount('retry')).toBe(2);
    // Without a key, the same body is a new turn (m<seq> ids): stored again.
    await post('/v1/sessions/retry/messages', openaiTurn);
    expect(await messageCount('retry')).toBe(4);
  });

  it('stores once when two copies of a request arrive at the same time', async () => {
    await post('/v1/sessions', { id: 'race' });
    const copies = await Promise.all(
      Array.from({ length: 10 }, () => post('/v1/sessions/race/messages', openaiTurn, 'same-key')),
    );
    expect(copies.map((c) => c.status)).toEqual(Array(10).fill(201));
    expect(copies.filter((c) => c.replayed === 'true')).toHaveLength(9);
    expect(await messageCount('race')).toBe(2);
  });

  it('refuses a key reused with a different request (409)', async () => {
    await post('/v1/sessions', { id: 'reuse' });
    await post('/v1/sessions/reuse/messages', openaiTurn, 'k-reuse');
    const other = await post(
      '/v1/sessions/reuse/messages',
      { format: 'openai', messages: [{ role: 'user', content: 'something else' }] },
      'k-reuse',
    );
    expect(other.status).toBe(409);
    expect(other.body.error.path).toBe('headers.idempotency-key');
    expect(await messageCount('reuse')).toBe(2);
  });

  it('rejects a malformed key (400)', async () => {
    const bad = await post('/v1/sessions', {}, 'has space');
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe('headers.idempotency-key');
  });

  it('answers a retried create without an id with the same session', async () => {
    const first = await post('/v1/sessions', { title: 'keyed' }, 'create-1');
    const again = await post('/v1/sessions', { title: 'keyed' }, 'create-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body.session.id).toBe(first.body.session.id);
    const list = await w.request('/v1/sessions', { key });
    const sessions = (JSON.parse(await list.text()) as { sessions: Array<{ title: string }> }).sessions;
    expect(sessions.filter((s) => s.title === 'keyed')).toHaveLength(1);
  });

  it('answers a retried compact from the first run', async () => {
    await post('/v1/sessions', { id: 'compact' });
    await post('/v1/sessions/compact/messages', openaiTurn);
    const first = await post('/v1/sessions/compact/compact', {}, 'compact-1');
    expect(first.status).toBe(200);
    const again = await post('/v1/sessions/compact/compact', {}, 'compact-1');
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('still answers from the first result after the runtime restarts', async () => {
    await post('/v1/sessions', { id: 'durable' });
    const first = await post('/v1/sessions/durable/messages', openaiTurn, 'durable-1');
    const persistDir = w.persistDir;
    await w.dispose({ keepState: true });
    w = await startWorker({ persistDir, migrate: false });
    const again = await post('/v1/sessions/durable/messages', openaiTurn, 'durable-1');
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await messageCount('durable')).toBe(2);
  });
});

describe('client message ids in every format', () => {
  async function ids(session: string): Promise<string[]> {
    const res = await w.request(`/v1/sessions/${session}/messages`, { key });
    return (JSON.parse(await res.text()) as { messages: Array<{ message: { id: string } }> }).messages.map(
      (r) => r.message.id,
    );
  }

  it('keeps OpenAI message ids, and a resent id is a 409 that stores nothing', async () => {
    await post('/v1/sessions', { id: 'oa-ids' });
    const turn = {
      format: 'openai',
      messages: [
        { id: 'client-u1', role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ],
    };
    const first = await post('/v1/sessions/oa-ids/messages', turn);
    expect(first.status).toBe(201);
    expect(await ids('oa-ids')).toEqual(['client-u1', 'm2']);
    const retry = await post('/v1/sessions/oa-ids/messages', turn);
    expect(retry.status).toBe(409);
    expect(retry.body.error.path).toBe('messages[0].id');
    expect(await ids('oa-ids')).toEqual(['client-u1', 'm2']);
  });

  it('keeps Anthropic message ids, numbering the pieces of a split message', async () => {
    await post('/v1/sessions', { id: 'an-ids' });
    const res = await post('/v1/sessions/an-ids/messages', {
      format: 'anthropic',
      system: 'be brief',
      messages: [
        { id: 'a-u1', role: 'user', content: 'list files' },
        {
          id: 'a-a1',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'tu1', name: 'ls', input: {} }],
        },
        {
          id: 'a-u2',
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'tu1', content: 'a.ts' },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
    expect(res.status).toBe(201);
    expect(await ids('an-ids')).toEqual(['m1', 'a-u1', 'a-a1', 'a-u2', 'a-u2.1']);
  });

  it('rejects an id that is not a string (400 naming it)', async () => {
    await post('/v1/sessions', { id: 'bad-ids' });
    const res = await post('/v1/sessions/bad-ids/messages', {
      format: 'openai',
      messages: [{ id: 7, role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.path).toBe('messages[0].id');
  });
});

describe('Idempotency-Key through a crash (the test build, whose fault points hold the runtime)', () => {
  let f: RunningWorker;
  let fkey: string;
  beforeAll(async () => {
    f = await startWorker({ testFaults: true });
    fkey = await f.createKey('crash');
  });
  afterAll(async () => {
    await f?.dispose();
  });

  const send = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    f.request(path, { method: 'POST', key: fkey, json, headers });

  async function texts(session: string): Promise<string[]> {
    const res = await f.request(`/v1/sessions/${session}/messages`, { key: fkey });
    return (
      JSON.parse(await res.text()) as { messages: Array<{ message: { parts: Array<{ text?: string }> } }> }
    ).messages.map((r) => r.message.parts[0]?.text ?? '');
  }

  for (const point of ['append:before-d1-write', 'append:after-d1-write'] as const)
    it(`stores a keyed append once when the runtime dies at ${point} and the client retries`, async () => {
      const session = `crash-${point.replace(/[^a-z]/g, '')}`;
      await (await send('/v1/sessions', { id: session })).text();
      const turn = { messages: [{ role: 'user', parts: [{ type: 'text', text: `once ${point}` }] }] };
      const held = send(`/v1/sessions/${session}/messages`, turn, {
        'idempotency-key': `k-${session}`,
        'x-ctxkit-test-fault': point,
      }).catch(() => undefined);
      // The fault point holds the append for ever: let it get there, then kill the runtime.
      await new Promise((r) => setTimeout(r, 1500));
      const persistDir = f.persistDir;
      await f.dispose({ keepState: true });
      await held;
      f = await startWorker({ persistDir, migrate: false, testFaults: true });
      const retry = await send(`/v1/sessions/${session}/messages`, turn, {
        'idempotency-key': `k-${session}`,
      });
      expect(retry.status).toBe(201);
      expect(await texts(session)).toEqual([`once ${point}`]);
      // And a third copy is a replay.
      const again = await send(`/v1/sessions/${session}/messages`, turn, {
        'idempotency-key': `k-${session}`,
      });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await texts(session)).toEqual([`once ${point}`]);
    });

  it('has no fault point in the bundle a deployment gets: the armed module is only in the test build', async () => {
    const { readFileSync } = await import('node:fs');
    const { bundleWorker } = await import('./support/bundle.ts');
    const deployed = readFileSync(await bundleWorker(), 'utf8');
    const test = readFileSync(await bundleWorker({ testFaults: true }), 'utf8');
    expect(test).toContain('ctxkit test fault: holding at');
    expect(deployed).not.toContain('ctxkit test fault');
    expect(deployed).not.toContain('x-ctxkit-test-fault');
  });
});
