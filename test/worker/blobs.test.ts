import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

let w: RunningWorker;
let api: ReturnType<typeof client>;
let appended: { journal: Array<{ action: string; location: string; messageId: string }> };
const output = Array.from({ length: 300 }, (_, i) => `line ${String(i).padStart(3, '0')} é`).join('\n');

beforeAll(async () => {
  w = await startWorker();
  api = client(w, await w.createKey('acme'));
  await api.post('/v1/sessions', { id: 's', config: { outputTruncation: { maxLines: 20 } } });
  appended = (
    await api.post('/v1/sessions/s/messages', {
      format: 'openai',
      messages: [
        { role: 'user', content: 'run the build' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: output },
      ],
    })
  ).body;
});
afterAll(async () => {
  await w?.dispose();
});

function blobPath(): string {
  const spill = appended.journal.find((j) => j.action === 'spilled')!;
  return `/v1/blobs/${encodeURIComponent(spill.location.slice('blob:'.length))}`;
}

describe('spilled outputs', () => {
  it('truncates a long tool result on arrival and spills it whole', async () => {
    const spill = appended.journal.find((j) => j.action === 'spilled');
    expect(spill?.messageId).toBe('m3');
    const log = await api.get('/v1/sessions/s/messages?after=2');
    const stored = log.body.messages[0].message.parts[0].output as string;
    expect(stored.length).toBeLessThan(output.length);
  });

  it('reads the whole output back by id', async () => {
    const res = await api.get(blobPath());
    expect([res.status, res.body]).toEqual([200, output]);
  });

  it('reads an inclusive HTTP byte range', async () => {
    expect((await w.request(blobPath())).status).toBe(401);
    const ranged = await api.get(blobPath(), { range: 'bytes=0-7' });
    expect([ranged.status, ranged.body]).toEqual([206, 'line 000']);
  });

  it('reads a suffix range', async () => {
    const res = await api.get(blobPath(), { range: 'bytes=-5' });
    // é is two bytes: the last five bytes are "99 é".
    expect([res.status, res.body]).toEqual([206, '99 é']);
  });

  it('reads [start, end) from query parameters', async () => {
    const res = await api.get(`${blobPath()}?start=5&end=8`);
    expect([res.status, res.body]).toEqual([206, '000']);
  });

  it('answers 400 for a malformed range and 404 for an unknown blob', async () => {
    expect((await api.get(blobPath(), { range: 'lines=1-2' })).status).toBe(400);
    expect((await api.get('/v1/blobs/nope')).status).toBe(404);
  });
});
