/**
 * Spilled tool outputs, read back by id: whole, or a byte range (`Range: bytes=a-b`, inclusive as
 * in HTTP, or `?start=&end=` with `end` exclusive). Blobs live under the tenant's R2 prefix.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { CtxError } from '../../core/index.ts';
import { createR2BlobStore, headBlob, tenantBlobPrefix } from '../blobs/r2-blob-store.ts';
import { type AppEnv, queryParams } from '../http/context.ts';

/** Largest byte offset of a spilled output (R2 objects stop at 5 TiB). */
const MAX_BLOB_OFFSET = 5 * 1024 ** 4;

const rangeQuery = z.strictObject({
  start: z.coerce.number().int().min(0).max(MAX_BLOB_OFFSET).optional(),
  end: z.coerce.number().int().min(0).max(MAX_BLOB_OFFSET).optional(),
});

/** Every query schema of these routes (walked by the bounds audit). */
export const blobRouteSchemas = { range: rangeQuery };

/** `bytes=a-b` → `[a, b + 1)`; `bytes=a-` → `[a, size)`; `bytes=-n` → the last n bytes. */
export function parseRange(header: string, size: number): { start: number; end: number } {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === ''))
    throw new CtxError('invalid_input', 'expected bytes=start-end (one range)', { path: 'headers.range' });
  if (m[1] === '') return { start: Math.max(0, size - Number(m[2])), end: size };
  const start = Number(m[1]);
  const end = m[2] === '' ? size : Math.min(size, Number(m[2]) + 1);
  if (end <= start && !(start >= size))
    throw new CtxError('invalid_input', 'range end must not be before its start', { path: 'headers.range' });
  return { start, end };
}

export function blobRoutes(app: Hono<AppEnv>): void {
  app.get('/v1/blobs/:id', async (c) => {
    const id = c.req.param('id');
    const prefix = tenantBlobPrefix(c.get('tenant'));
    const head = await headBlob(c.env.BLOBS, prefix, id);
    if (!head) throw new CtxError('not_found', `blob ${id} not found`, { path: 'params.id' });
    const store = createR2BlobStore({ bucket: c.env.BLOBS, prefix });
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      'accept-ranges': 'bytes',
      'x-content-sha256': head.sha256,
    };
    const q = queryParams(c, rangeQuery);
    const header = c.req.header('range');
    let range: { start: number; end: number } | undefined;
    if (header !== undefined) range = parseRange(header, head.size);
    else if (q.start !== undefined || q.end !== undefined) {
      const start = q.start ?? 0;
      const end = Math.min(q.end ?? head.size, head.size);
      if (end < start)
        throw new CtxError('invalid_input', 'end must not be before start', { path: 'query.end' });
      range = { start, end };
    }
    if (!range) {
      const text = await store.get(id);
      if (text === undefined) throw new CtxError('not_found', `blob ${id} not found`, { path: 'params.id' });
      return new Response(text, { status: 200, headers });
    }
    if (range.start >= head.size && head.size > 0)
      throw new CtxError('invalid_input', `range starts beyond the blob's ${head.size} bytes`, {
        path: 'headers.range',
      });
    const text = (await store.getRange!(id, range.start, range.end)) ?? '';
    headers['content-range'] = `bytes ${range.start}-${Math.max(range.start, range.end - 1)}/${head.size}`;
    return new Response(text, { status: 206, headers });
  });
}
