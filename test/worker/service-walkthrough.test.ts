/**
 * examples/service-walkthrough.sh, as a user runs it against `npm start`: twice in a row on one
 * service, each run succeeding and leaving nothing of the tenant behind (its memory would otherwise
 * reach every later session's system prompt).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './support/client.ts';
import { type RunningWorker, startWorker } from './support/harness.ts';

const root = join(import.meta.dirname, '..', '..');
let w: RunningWorker;
let key: string;

beforeAll(async () => {
  w = await startWorker();
  key = await w.createKey('walkthrough');
});
afterAll(async () => {
  await w?.dispose();
});

function walk() {
  return spawnSync('sh', ['examples/service-walkthrough.sh'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CTXKIT_KEY: key, B: w.url.origin },
    timeout: 60_000,
  });
}

describe('examples/service-walkthrough.sh', () => {
  it('runs twice in a row and leaves no memory or extra session of the tenant when it ends', async () => {
    for (const run of [walk(), walk()]) {
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('12. clean up');
    }
    const memories = await client(w, key).get('/v1/memories');
    expect(memories.body.memories).toEqual([]);
    const sessions = await client(w, key).get('/v1/sessions');
    expect(sessions.body.sessions.map((s: { id: string }) => s.id)).toEqual([]);
  });
});
