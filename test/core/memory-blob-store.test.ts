import { describe, expect, it } from 'vitest';
import {
  cleanupOlderThan,
  createMemoryBlobStore,
  utf8Range,
} from '../../src/core/blobs/memory-blob-store.ts';
import { fixedClock } from '../../src/core/ports.ts';
import { blobStoreContract } from '../contract/blob-store-contract.ts';

blobStoreContract('memory', () => createMemoryBlobStore());

describe('createMemoryBlobStore', () => {
  it('stamps createdAt from the clock and names a memory:// location when no createdAt is given', async () => {
    const store = createMemoryBlobStore({ clock: fixedClock(1000) });
    const info = await store.put('x', 'y');
    expect([info.createdAt, info.location]).toEqual([1000, 'memory://blobs/x']);
  });
});

describe('cleanupOlderThan', () => {
  it('deletes blobs older than 7 days by default', async () => {
    const clock = fixedClock('2026-01-10T00:00:00Z');
    const store = createMemoryBlobStore({ clock });
    await store.put('a', '1', { createdAt: Date.parse('2026-01-02T00:00:00Z') });
    await store.put('b', '2', { createdAt: Date.parse('2026-01-04T00:00:00Z') });
    expect(await cleanupOlderThan(store, clock)).toBe(1);
    expect(await store.get('b')).toBe('2');
    expect(await cleanupOlderThan(store, clock, 1)).toBe(1);
  });
});

describe('utf8Range', () => {
  it('marks a split character with U+FFFD when the range cuts inside it', () => {
    expect(utf8Range('é', 0, 1)).toBe('\uFFFD');
  });
});
