/**
 * The contract every `BlobStore` keeps (memory, filesystem, and later D1/R2). Runtime-neutral: no
 * Node imports here, so the worker lane can run it too. Call it from a test file:
 * `blobStoreContract('memory', () => createMemoryBlobStore())`.
 */
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/core/ports.ts';

const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export function blobStoreContract(name: string, makeStore: () => BlobStore | Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('returns size in UTF-8 bytes, SHA-256 and the given createdAt when putting', async () => {
      const store = await makeStore();
      const info = await store.put('b1', 'abc', { createdAt: 1_700_000_000_000 });
      expect([info.id, info.size, info.sha256, info.createdAt]).toEqual([
        'b1',
        3,
        ABC_SHA256,
        1_700_000_000_000,
      ]);
      expect(typeof info.location).toBe('string');
      expect(info.location.length).toBeGreaterThan(0);
      const multi = await store.put('b2', 'é世🙂');
      expect(multi.size).toBe(2 + 3 + 4);
    });

    it('reads back exactly what was stored when getting', async () => {
      const store = await makeStore();
      const text = 'héllo 世界 🙂\nline 2\r\n\ttabbed\u0000nul';
      await store.put('round', text);
      expect(await store.get('round')).toBe(text);
    });

    it('returns undefined when the id is unknown', async () => {
      const store = await makeStore();
      expect(await store.get('missing')).toBeUndefined();
      expect(await store.getRange?.('missing', 0, 10)).toBeUndefined();
    });

    it('stores empty content with size 0', async () => {
      const store = await makeStore();
      const info = await store.put('empty', '');
      expect([info.size, info.sha256]).toEqual([0, EMPTY_SHA256]);
      expect(await store.get('empty')).toBe('');
    });

    it('keeps the last content when the same id is put twice', async () => {
      const store = await makeStore();
      await store.put('same', 'first');
      const info = await store.put('same', 'second!');
      expect(info.size).toBe(7);
      expect(await store.get('same')).toBe('second!');
    });

    it('keeps ids apart when they differ only in characters a file system dislikes', async () => {
      const store = await makeStore();
      await store.put('call/1:x', 'slash');
      await store.put('call_1_x', 'underscore');
      expect(await store.get('call/1:x')).toBe('slash');
      expect(await store.get('call_1_x')).toBe('underscore');
    });

    it('returns byte ranges [start, end) of the UTF-8 content when asked for a range', async () => {
      const store = await makeStore();
      expect(typeof store.getRange).toBe('function');
      await store.put('range', 'hello world');
      expect(await store.getRange!('range', 0, 5)).toBe('hello');
      expect(await store.getRange!('range', 6)).toBe('world');
      expect(await store.getRange!('range', 6, 1000)).toBe('world');
      expect(await store.getRange!('range', 50)).toBe('');
      await store.put('multi', 'aéb世c');
      expect(await store.getRange!('multi', 1, 3)).toBe('é');
      expect(await store.getRange!('multi', 4, 7)).toBe('世');
    });

    it('round-trips a 1 MB output', async () => {
      const store = await makeStore();
      const big = 'line of output 0123456789\n'.repeat(40_330);
      const info = await store.put('big', big);
      expect(info.size).toBe(big.length);
      expect((await store.get('big'))?.length).toBe(big.length);
      expect(await store.getRange!('big', 26, 30)).toBe('line');
    });

    it('removes the blob and tolerates unknown ids when deleting', async () => {
      const store = await makeStore();
      await store.put('gone', 'x');
      await store.delete('gone');
      expect(await store.get('gone')).toBeUndefined();
      await expect(store.delete('never-there')).resolves.toBeUndefined();
    });

    it('deletes only blobs created before the cut-off and counts them when cleaning up', async () => {
      const store = await makeStore();
      const day = 86_400_000;
      const now = 1_800_000_000_000;
      await store.put('old', 'o', { createdAt: now - 8 * day });
      await store.put('edge', 'e', { createdAt: now - 7 * day });
      await store.put('new', 'n', { createdAt: now - day });
      expect(await store.cleanup(now - 7 * day)).toBe(1);
      expect(await store.get('old')).toBeUndefined();
      expect(await store.get('edge')).toBe('e');
      expect(await store.get('new')).toBe('n');
      expect(await store.cleanup(0)).toBe(0);
    });
  });
}
