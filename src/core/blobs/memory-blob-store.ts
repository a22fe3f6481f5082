/**
 * An in-memory `BlobStore`: for tests, the worker's per-request scratch space, and library users
 * who keep spilled outputs in their own process. Runtime-neutral.
 */
import { CtxError } from '../errors.ts';
import type { BlobInfo, BlobStore, Clock } from '../ports.ts';
import { systemClock } from '../ports.ts';
import { utf8Length } from '../tokens/text-stats.ts';
import { sha256Hex } from './sha256.ts';

export interface MemoryBlobStoreOptions {
  /** Stamps `createdAt` when `put` is given none. @default systemClock */
  clock?: Clock;
  /** Builds the read-back location of a blob. @default (id) => `memory://blobs/${id}` */
  location?: (id: string) => string;
}

export interface MemoryBlobStore extends BlobStore {
  getRange(id: string, start: number, end?: number): Promise<string | undefined>;
  /** Number of blobs held. */
  readonly size: number;
}

const DAY_MS = 86_400_000;

/** Deletes blobs older than `days` (default 7, as KosmoKrator's truncation storage) at `clock.now()`. */
export function cleanupOlderThan(store: BlobStore, clock: Clock, days = 7): Promise<number> {
  if (!(days >= 0))
    throw new CtxError('invalid_config', 'must be a non-negative number of days', { path: 'days' });
  return store.cleanup(clock.now() - days * DAY_MS);
}

/** Bytes `[start, end)` of the UTF-8 encoding of `content`, decoded (a split character becomes U+FFFD). */
export function utf8Range(content: string, start: number, end?: number): string {
  const bytes = new TextEncoder().encode(content);
  const from = Math.max(0, Math.min(bytes.length, Math.floor(start)));
  const to = end === undefined ? bytes.length : Math.max(from, Math.min(bytes.length, Math.floor(end)));
  return new TextDecoder().decode(bytes.subarray(from, to));
}

export function createMemoryBlobStore(options: MemoryBlobStoreOptions = {}): MemoryBlobStore {
  const clock = options.clock ?? systemClock;
  const location = options.location ?? ((id: string) => `memory://blobs/${id}`);
  const blobs = new Map<string, { content: string; info: BlobInfo }>();
  return {
    get size() {
      return blobs.size;
    },
    async put(id, content, putOptions) {
      if (id === '') throw new CtxError('invalid_input', 'blob id must not be empty', { path: 'id' });
      const info: BlobInfo = {
        id,
        size: utf8Length(content),
        sha256: await sha256Hex(content),
        createdAt: putOptions?.createdAt ?? clock.now(),
        location: location(id),
      };
      blobs.set(id, { content, info });
      return info;
    },
    async get(id) {
      return blobs.get(id)?.content;
    },
    async getRange(id, start, end) {
      const blob = blobs.get(id);
      return blob === undefined ? undefined : utf8Range(blob.content, start, end);
    },
    async delete(id) {
      blobs.delete(id);
    },
    async cleanup(before) {
      let n = 0;
      for (const [id, blob] of blobs)
        if (blob.info.createdAt < before) {
          blobs.delete(id);
          n++;
        }
      return n;
    },
  };
}
