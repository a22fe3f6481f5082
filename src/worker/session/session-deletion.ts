/**
 * Deleting a session deletes everything it owns, whether a client asks (`DELETE /v1/sessions/:id`) or
 * the clean-up cron finds it idle: the memories ctxkit extracted in it (and their search chunks), the
 * tool outputs it spilled to R2, its D1 rows (log and state), then its Durable Object's storage
 * (settings, call journals, idempotency answers, divergence ranges, the daily-flush mark). In that
 * order, so that a deletion cut short leaves the session listed and is simply run again; and a
 * session id used again starts empty (`create` also clears storage an older deletion left behind).
 * The tenant's daily memory documents are shared by its sessions and stay (docs/service.md).
 */
import { CtxError } from '../../core/index.ts';
import { deleteSessionBlobs, tenantBlobPrefix } from '../blobs/r2-blob-store.ts';
import type { SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

/** Memories read and deleted at a time. */
const MEMORY_PAGE = 500;

export interface SessionDeletion {
  deleted: boolean;
  /** Memories extracted in the session, deleted with it. */
  memories: number;
  /** Spilled outputs of the session, deleted with it. */
  blobs: number;
}

export interface DeleteOptions {
  /** Only when the session's last activity is before this time (the clean-up's idle cut-off). */
  idleBefore?: number | undefined;
  /**
   * The blob retention's cut-off of the same clean-up: a session idle since before it spilled nothing
   * newer, so the retention deletes all its blobs and R2 is not listed for them.
   */
  blobsExpireBefore?: number | undefined;
}

/** The memories made in the session (every scope), page by page; how many went. */
async function deleteSessionMemories(deps: SessionDeps, key: SessionKey): Promise<number> {
  let removed = 0;
  for (;;) {
    const page = await deps.memories.list(key.tenant, { fromSession: key.session, limit: MEMORY_PAGE });
    if (page.length === 0) return removed;
    removed += await deps.memories.delete(
      key.tenant,
      page.map((m) => m.id),
    );
    if (page.length < MEMORY_PAGE) return removed;
  }
}

/**
 * The session's data outside its object. `not_found` when D1 holds no such session; `deleted: false`
 * when it has been active since `idleBefore`. The caller then clears the object's storage.
 */
export async function deleteSessionData(
  deps: SessionDeps,
  bucket: R2Bucket,
  key: SessionKey,
  options: DeleteOptions = {},
): Promise<SessionDeletion> {
  const info = await deps.sessions.get(key.tenant, key.session);
  if (!info) throw new CtxError('not_found', `session ${key.session} not found`, { path: 'params.session' });
  if (options.idleBefore !== undefined && info.lastActive >= options.idleBefore)
    return { deleted: false, memories: 0, blobs: 0 };
  const memories = await deleteSessionMemories(deps, key);
  const retained = options.blobsExpireBefore === undefined || info.lastActive >= options.blobsExpireBefore;
  const blobs = retained ? await deleteSessionBlobs(bucket, tenantBlobPrefix(key.tenant), key.session) : 0;
  await deps.sessions.delete(key.tenant, key.session);
  return { deleted: true, memories, blobs };
}
