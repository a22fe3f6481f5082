/**
 * What a tenant stores, counted from the stores themselves: the bytes of its rows in D1 (session
 * logs and session state, memories, memory documents and their search chunks with vectors) and of
 * its objects in R2 (spilled tool outputs). Counted again at most every `recountMs` by the tenant's
 * object, so deletes, clean-ups and writes that bypass the gate (the proxy's log of a turn, a
 * compaction's spill) are all seen at the next count.
 */

import { tenantBlobPrefix } from '../blobs/r2-blob-store.ts';
import type { Env } from '../env.ts';

// LENGTH(CAST(x AS BLOB)) is the UTF-8 byte length; LENGTH(text) would count characters.
const BYTES = (col: string) => `COALESCE(SUM(LENGTH(CAST(${col} AS BLOB))), 0)`;
const ROW_BYTES_SQL = `SELECT
  (SELECT ${BYTES('message')} + ${BYTES('text')} FROM session_messages WHERE tenant = ?1) +
  (SELECT ${BYTES('state')} + ${BYTES('title')} FROM sessions WHERE tenant = ?1) +
  (SELECT ${BYTES('title')} + ${BYTES('content')} FROM memories WHERE tenant = ?1) +
  (SELECT ${BYTES('content')} FROM documents WHERE tenant = ?1) +
  (SELECT ${BYTES('text')} + ${BYTES('embedding')} FROM chunks WHERE tenant = ?1) AS bytes`;

/** The bytes of the tenant's D1 rows (their text and JSON columns). */
export async function rowBytes(db: D1Database, tenant: string): Promise<number> {
  const row = await db.prepare(ROW_BYTES_SQL).bind(tenant).first<{ bytes: number | null }>();
  return Number(row?.bytes ?? 0);
}

/** The bytes of the tenant's objects in R2, page by page. */
export async function blobBytes(bucket: R2Bucket, tenant: string): Promise<number> {
  const prefix = tenantBlobPrefix(tenant);
  let total = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list({ prefix, limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const o of page.objects) total += o.size;
    if (!page.truncated) return total;
    cursor = page.cursor;
  }
}

export async function storedBytes(env: Pick<Env, 'DB' | 'BLOBS'>, tenant: string): Promise<number> {
  const [rows, blobs] = await Promise.all([rowBytes(env.DB, tenant), blobBytes(env.BLOBS, tenant)]);
  return rows + blobs;
}

/** The tenant's sessions (its rows in `sessions`; each has its Durable Object). */
export async function sessionCount(db: D1Database, tenant: string): Promise<number> {
  const row = await db
    .prepare('SELECT COUNT(*) AS n FROM sessions WHERE tenant = ?1')
    .bind(tenant)
    .first<{ n: number }>();
  return Number(row?.n ?? 0);
}
