/**
 * The blob store of session messages too large for a D1 row (src/db/sql/large-rows.ts): R2 objects
 * under the tenant's prefix, `t/<tenant>/~log/<session>/<sha256>`, so that they count toward the
 * tenant's stored bytes, marked `kind: log` so that the spilled-output clean-up (BLOB_RETENTION_DAYS)
 * leaves them: they live as long as their session and go with it.
 */
import type { LargeValues } from '../../db/sql/large-rows.ts';
import { tenantBlobPrefix } from './r2-blob-store.ts';

/** `customMetadata.kind` of a large message's object. */
export const LOG_KIND = 'log';

export function logPrefix(tenant: string, session: string): string {
  return `${tenantBlobPrefix(tenant)}~log/${encodeURIComponent(session)}/`;
}

export function r2LargeValues(bucket: R2Bucket): LargeValues {
  return {
    async put(tenant, session, key, text) {
      await bucket.put(logPrefix(tenant, session) + key, text, {
        httpMetadata: { contentType: 'application/json; charset=utf-8' },
        customMetadata: { kind: LOG_KIND },
      });
    },
    async get(tenant, session, key) {
      const object = await bucket.get(logPrefix(tenant, session) + key);
      return object ? object.text() : undefined;
    },
    async remove(tenant, session, key) {
      await bucket.delete(logPrefix(tenant, session) + key);
    },
    async drop(tenant, session) {
      const prefix = logPrefix(tenant, session);
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
        if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
    },
  };
}
