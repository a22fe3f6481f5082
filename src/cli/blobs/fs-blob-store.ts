/**
 * A `BlobStore` on the Node filesystem, laid out as KosmoKrator's truncation storage (SEED-RULES §4.1):
 * one file per blob, `tool_{id}.txt`, where every character of the id outside `[a-zA-Z0-9_-]` becomes
 * `_`. When that replacement changed the id, 8 hex digits of the id's SHA-256 are appended so that two
 * ids never share a file (`a/b` and `a_b`). A blob's `createdAt` is the file's mtime; `cleanup(before)`
 * deletes `tool_*.txt` files modified before `before`, `cleanupOlderThan(days = 7)` those older than a week.
 */
import { mkdir, open, readdir, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BlobInfo, BlobStore, Clock } from '../../core/index.ts';
import { CtxError, sha256Hex, systemClock, utf8Length } from '../../core/index.ts';

export interface FsBlobStoreOptions {
  /** Directory holding the files; created on first write. @default `~/.ctxkit/data/truncations` */
  dir?: string;
  /** @default systemClock */
  clock?: Clock;
}

export interface FsBlobStore extends BlobStore {
  readonly dir: string;
  getRange(id: string, start: number, end?: number): Promise<string | undefined>;
  /** Deletes blob files older than `days` days. @default 7 */
  cleanupOlderThan(days?: number): Promise<number>;
  /** The file a blob id maps to. */
  pathFor(id: string): Promise<string>;
}

const DAY_MS = 86_400_000;
const FILE_PATTERN = /^tool_.*\.txt$/;

export function defaultBlobDir(): string {
  return join(homedir(), '.ctxkit', 'data', 'truncations');
}

function isMissing(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ENOENT';
}

export function createFsBlobStore(options: FsBlobStoreOptions = {}): FsBlobStore {
  const dir = resolve(options.dir ?? defaultBlobDir());
  const clock = options.clock ?? systemClock;

  async function pathFor(id: string): Promise<string> {
    if (id === '') throw new CtxError('invalid_input', 'blob id must not be empty', { path: 'id' });
    const safe = id.replace(/[^a-zA-Z0-9_-]/g, '_');
    const name = safe === id ? safe : `${safe}_${(await sha256Hex(id)).slice(0, 8)}`;
    return join(dir, `tool_${name}.txt`);
  }

  async function cleanup(before: number): Promise<number> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw new CtxError('storage_error', `cannot list ${dir}`, { cause: error });
    }
    let removed = 0;
    for (const name of names) {
      if (!FILE_PATTERN.test(name)) continue;
      const file = join(dir, name);
      try {
        if ((await stat(file)).mtimeMs < before) {
          await unlink(file);
          removed++;
        }
      } catch (error) {
        if (!isMissing(error)) throw new CtxError('storage_error', `cannot remove ${file}`, { cause: error });
      }
    }
    return removed;
  }

  return {
    dir,
    pathFor,
    async put(id, content, putOptions) {
      const file = await pathFor(id);
      const createdAt = putOptions?.createdAt ?? clock.now();
      try {
        await mkdir(dir, { recursive: true });
        await writeFile(file, content, 'utf8');
        const when = new Date(createdAt);
        await utimes(file, when, when);
      } catch (error) {
        throw new CtxError('storage_error', `cannot write ${file}`, { cause: error });
      }
      const info: BlobInfo = {
        id,
        size: utf8Length(content),
        sha256: await sha256Hex(content),
        createdAt,
        location: file,
      };
      return info;
    },
    async get(id) {
      try {
        return await readFile(await pathFor(id), 'utf8');
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw new CtxError('storage_error', `cannot read blob ${id}`, { cause: error });
      }
    },
    async getRange(id, start, end) {
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(await pathFor(id), 'r');
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw new CtxError('storage_error', `cannot read blob ${id}`, { cause: error });
      }
      try {
        const size = (await handle.stat()).size;
        const from = Math.max(0, Math.min(size, Math.floor(start)));
        const to = end === undefined ? size : Math.max(from, Math.min(size, Math.floor(end)));
        const buffer = new Uint8Array(to - from);
        if (buffer.length > 0) await handle.read(buffer, 0, buffer.length, from);
        return new TextDecoder().decode(buffer);
      } finally {
        await handle.close();
      }
    },
    async delete(id) {
      try {
        await unlink(await pathFor(id));
      } catch (error) {
        if (!isMissing(error))
          throw new CtxError('storage_error', `cannot delete blob ${id}`, { cause: error });
      }
    },
    cleanup,
    cleanupOlderThan(days = 7) {
      if (!(days >= 0))
        throw new CtxError('invalid_config', 'must be a non-negative number of days', { path: 'days' });
      return cleanup(clock.now() - days * DAY_MS);
    },
  };
}
