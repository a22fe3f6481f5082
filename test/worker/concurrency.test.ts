import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  w = await startWorker();
  api = client(w, await w.createKey('acme'));
  await api.post('/v1/sessions', { id: 'busy' });
});
afterAll(async () => {
  await w?.dispose();
});

describe('SessionObject', () => {
  it('stores exactly 100 messages in order when 100 appends arrive at once', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api.post('/v1/sessions/busy/messages', {
          messages: [{ role: 'user', parts: [{ type: 'text', text: `n${i}` }] }],
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(100).fill(201));
    const seqOf = new Map(replies.map((r, i) => [`n${i}`, r.body.appended[0].seq as number]));
    expect([...seqOf.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));

    const log = await api.get('/v1/sessions/busy/messages');
    const rows = log.body.messages as Array<{
      seq: number;
      message: { id: string; parts: Array<{ text: string }> };
    }>;
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The row at each seq holds the message whose append was answered with that seq, under id m<seq>.
    for (const row of rows) {
      const text = row.message.parts[0]!.text;
      expect([text, row.seq, row.message.id]).toEqual([text, seqOf.get(text), `m${row.seq}`]);
    }
    expect((await api.get('/v1/sessions/busy')).body.session.lastSeq).toBe(100);
  });

  it('lets one of two simultaneous compactions run and answers the other 409', async () => {
    const [x, y] = await Promise.all([
      api.post('/v1/sessions/busy/compact', {}),
      api.post('/v1/sessions/busy/compact', {}),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    const refused = x.status === 409 ? x : y;
    expect(refused.body.error.message).toContain('already running');
  });
});
