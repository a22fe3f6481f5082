import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsBlobStore } from '../../src/cli/blobs/fs-blob-store.ts';
import { fixedClock } from '../../src/core/index.ts';
import { blobStoreContract } from '../contract/blob-store-contract.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ctxkit-blobs-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

blobStoreContract('fs', async () => createFsBlobStore({ dir: await tempDir() }));

describe('createFsBlobStore', () => {
  it('writes tool_{id}.txt and returns the absolute file path as location when the id is safe', async () => {
    const dir = await tempDir();
    const store = createFsBlobStore({ dir });
    const info = await store.put('call_abc-1', 'full output');
    expect(info.location).toBe(join(dir, 'tool_call_abc-1.txt'));
    expect(await readdir(dir)).toEqual(['tool_call_abc-1.txt']);
  });

  it('sanitises unsafe characters to _ and adds a hash suffix when the id needed it', async () => {
    const dir = await tempDir();
    const store = createFsBlobStore({ dir });
    const info = await store.put('toolu:01/x', 'x');
    expect(info.location).toMatch(/tool_toolu_01_x_[0-9a-f]{8}\.txt$/);
  });

  it('sets the file mtime to createdAt', async () => {
    const dir = await tempDir();
    const store = createFsBlobStore({ dir });
    const info = await store.put('t', 'x', { createdAt: Date.parse('2026-01-01T00:00:00Z') });
    expect(Math.round((await stat(info.location)).mtimeMs)).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });

  it('deletes files older than 7 days and leaves other files alone when cleanupOlderThan runs', async () => {
    const dir = await tempDir();
    const clock = fixedClock('2026-02-01T00:00:00Z');
    const store = createFsBlobStore({ dir, clock });
    await store.put('old', 'o', { createdAt: Date.parse('2026-01-20T00:00:00Z') });
    await store.put('recent', 'r', { createdAt: Date.parse('2026-01-30T00:00:00Z') });
    const other = createFsBlobStore({ dir: join(dir, 'nested') });
    await other.put('keep', 'k', { createdAt: 0 });
    expect(await store.cleanupOlderThan()).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(['nested', 'tool_recent.txt']);
  });

  it('returns 0 when the directory does not exist yet', async () => {
    const store = createFsBlobStore({ dir: join(await tempDir(), 'absent') });
    expect(await store.cleanup(Date.now())).toBe(0);
  });
});
