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

describe('memory routes', () => {
  let id: string;

  it('creates a memory with defaults', async () => {
    const res = await api.post('/v1/memories', {
      type: 'decision',
      title: 'Database',
      content: 'We use D1 with drizzle.',
    });
    expect(res.status).toBe(201);
    id = res.body.memory.id;
    expect([
      res.body.memory.class,
      res.body.memory.pinned,
      res.body.memory.project,
      res.body.memory.expiresAt,
    ]).toEqual(['durable', false, '', null]);
    expect(res.body.memory.tenant).toBeUndefined();
  });

  it('lists and filters by type', async () => {
    await api.post('/v1/memories', {
      type: 'user',
      title: 'Name',
      content: 'The user is Ada.',
      project: 'p1',
    });
    expect((await api.get('/v1/memories')).body.memories).toHaveLength(2);
    const decisions = await api.get('/v1/memories?type=decision');
    expect(decisions.body.memories.map((m: { id: string }) => m.id)).toEqual([id]);
  });

  it('reads one memory', async () => {
    const res = await api.get(`/v1/memories/${id}`);
    expect([res.status, res.body.memory.title]).toEqual([200, 'Database']);
  });

  it('finds it by keyword', async () => {
    const res = await api.post('/v1/memories/search', { query: 'drizzle' });
    expect(res.body.hits[0].text).toContain('We use D1 with drizzle.');
    expect(res.body.hits[0].keywordScore).toBeGreaterThan(0);
  });

  it('deletes it, then answers 404', async () => {
    expect((await api.delete(`/v1/memories/${id}`)).status).toBe(204);
    expect((await api.get(`/v1/memories/${id}`)).status).toBe(404);
    expect((await api.post('/v1/memories/search', { query: 'drizzle' })).body.hits).toEqual([]);
  });

  it('rejects an unknown type naming the field', async () => {
    const res = await api.post('/v1/memories', { type: 'gossip', title: 't', content: 'c' });
    expect([res.status, res.body.error.path]).toEqual([400, 'type']);
  });
});

describe('memory search with Workers AI bound', () => {
  it('combines vector and keyword scores', async () => {
    const ai = await startWorker({ fakeAi: true });
    try {
      const api2 = client(ai, await ai.createKey('acme'));
      await api2.post('/v1/memories', {
        type: 'decision',
        title: 'Database',
        content: 'Billing runs on PostgreSQL.',
      });
      await api2.post('/v1/memories', {
        type: 'user',
        title: 'Editor',
        content: 'The user prefers vim keybindings.',
      });
      const res = await api2.post('/v1/memories/search', { query: 'postgresql billing' });
      expect(res.status).toBe(200);
      const top = res.body.hits[0];
      expect(top.text).toContain('PostgreSQL');
      expect(top.vectorScore).toBeGreaterThan(0);
      // Default mode: best on both sides (normalised 1 and 1), its own source's best: (1 + 0.4) / 1.9.
      expect(top.keywordScore).toBe(1);
      expect(top.score).toBeCloseTo(1.4 / 1.9, 6);
      const cow = await api2.post('/v1/memories/search', { query: 'postgresql billing', mode: 'cowagent' });
      const c0 = cow.body.hits[0];
      expect(c0.text).toContain('PostgreSQL');
      expect(c0.score).toBeCloseTo(0.7 * c0.vectorScore + 0.3 * c0.keywordScore, 6);
      const bad = await api2.post('/v1/memories/search', { query: 'x', halfLifeDays: 0 });
      expect([bad.status, bad.body.error.path]).toEqual([400, 'halfLifeDays']);
    } finally {
      await ai.dispose();
    }
  });
});
