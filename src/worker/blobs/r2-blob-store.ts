/**
 * `BlobStore` over R2: spilled tool outputs, one object per blob under `<prefix><id>`. The prefix
 * carries the tenant (`t/<tenant>/`), so one tenant's store cannot see another's blobs; the clean-up
 * store of the cron uses the bare `t/` prefix to cover every tenant.
 */
import { type BlobInfo, type BlobStore, type Clock, CtxError, systemClock } from '../../core/index.ts';
import { sha256Hex } from '../auth/api-keys.ts';

export interface R2BlobStoreOptions {
  bucket: R2Bucket;
  /** Key prefix of every object. @default '' */
  prefix?: string;
  /** Where a client reads a blob back: `${locationBase}${id}`. @default '/v1/blobs/' */
  locationBase?: string;
  /** @default systemClock */
  clock?: Clock;
  /** The session that writes through this store: kept with each object, so its deletion finds them. */
  session?: string;
}

// R2 keys are opaque (no path semantics), so any printable id is safe under the tenant prefix.
const ID_RE = /^[^\u0000-\u001f\u007f]{1,512}$/;

/** The R2 prefix of a tenant's blobs. */
export function tenantBlobPrefix(tenant: string): string {
  return `t/${encodeURIComponent(tenant)}/`;
}

function checkId(id: string): void {
  if (!ID_RE.test(id))
    throw new CtxError('invalid_input', 'blob id must be 1–512 printable characters', { path: 'id' });
}

export function createR2BlobStore(options: R2BlobStoreOptions): BlobStore {
  const { bucket } = options;
  const prefix = options.prefix ?? '';
  const locationBase = options.locationBase ?? '/v1/blobs/';
  const clock = options.clock ?? systemClock;
  const key = (id: string) => {
    checkId(id);
    return `${prefix}${id}`;
  };

  return {
    async put(id, content, putOptions = {}): Promise<BlobInfo> {
      const bytes = new TextEncoder().encode(content);
      const createdAt = putOptions.createdAt ?? clock.now();
      const sha256 = await sha256Hex(content);
      await bucket.put(key(id), bytes, {
        httpMetadata: { contentType: 'text/plain; charset=utf-8' },
        customMetadata: {
          createdAt: String(createdAt),
          sha256,
          ...(options.session !== undefined ? { session: options.session } : {}),
        },
      });
      return {
        id,
        size: bytes.byteLength,
        sha256,
        createdAt,
        location: `${locationBase}${encodeURIComponent(id)}`,
      };
    },
    async get(id) {
      const object = await bucket.get(key(id));
      return object ? object.text() : undefined;
    },
    async getRange(id, start, end) {
      if (!Number.isInteger(start) || start < 0)
        throw new CtxError('invalid_input', 'range start must be an integer ≥ 0', { path: 'start' });
      if (end !== undefined && (!Number.isInteger(end) || end < start))
        throw new CtxError('invalid_input', 'range end must be an integer ≥ start', { path: 'end' });
      const head = await bucket.head(key(id));
      if (!head) return undefined;
      const stop = Math.min(end ?? head.size, head.size);
      if (start >= stop) return '';
      const object = await bucket.get(key(id), { range: { offset: start, length: stop - start } });
      if (!object) return undefined;
      return new TextDecoder().decode(await object.arrayBuffer());
    },
    async delete(id) {
      await bucket.delete(key(id));
    },
    async cleanup(before) {
      let removed = 0;
      let cursor: string | undefined;
      do {
        // `include` is honoured by the runtime (compat ≥ 2022-08-04) but missing from the typings.
        const listOptions = { prefix, include: ['customMetadata'], ...(cursor ? { cursor } : {}) };
        const page = await bucket.list(listOptions as R2ListOptions);
        const stale = page.objects
          .filter((o) => {
            // A large message of a session log lives as long as its session (blobs/log-values.ts).
            if (o.customMetadata?.kind === 'log') return false;
            const created = Number(o.customMetadata?.createdAt ?? o.uploaded.getTime());
            return created < before;
          })
          .map((o) => o.key);
        if (stale.length > 0) await bucket.delete(stale);
        removed += stale.length;
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return removed;
    },
  };
}

/** Metadata of a stored blob, or undefined. */
export async function headBlob(
  bucket: R2Bucket,
  prefix: string,
  id: string,
): Promise<{ size: number; sha256: string; createdAt: number } | undefined> {
  checkId(id);
  const head = await bucket.head(`${prefix}${id}`);
  if (!head) return undefined;
  return {
    size: head.size,
    sha256: head.customMetadata?.sha256 ?? '',
    createdAt: Number(head.customMetadata?.createdAt ?? head.uploaded.getTime()),
  };
}

/**
 * Deletes the objects under `prefix` that `session` wrote (their `session` metadata), page by page;
 * returns how many went. Objects written before sessions were recorded are left to the retention.
 */
export async function deleteSessionBlobs(bucket: R2Bucket, prefix: string, session: string): Promise<number> {
  let removed = 0;
  let cursor: string | undefined;
  do {
    const listOptions = { prefix, include: ['customMetadata'], ...(cursor ? { cursor } : {}) };
    const page = await bucket.list(listOptions as R2ListOptions);
    const owned = page.objects.filter((o) => o.customMetadata?.session === session).map((o) => o.key);
    if (owned.length > 0) await bucket.delete(owned);
    removed += owned.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return removed;
}
