/**
 * The recall tools of a session in the service: the pipeline archives what leaves the context in the
 * session object's own storage (session-archive.ts), and `recall`, `reread` and `remember` answer over
 * it and over the tenant's memory store — a remembered fact is kept for this session only (scope
 * `session`, source `tool`: the model wrote it) and its bytes are reserved against the tenant's stored
 * bytes like any memory. `RECALL_MAX_TOKENS` sets the tokens one answer may take.
 */
import { CtxError, createRecall, type MemoryStore, RECALL_DEFAULTS, type Recall } from '../../core/index.ts';
import type { Env } from '../env.ts';
import { byteLength, storageQuota, withReservation } from '../limits/storage-quota.ts';
import { createD1MemoryStore } from '../store/d1-stores.ts';
import { createSessionArchive, r2ArchiveBlobs } from './session-archive.ts';
import type { SessionKey } from './wire.ts';

/** Bounds of `RECALL_MAX_TOKENS` and of a route's `maxTokens`. */
export const RECALL_TOKEN_BOUNDS = { min: 50, max: 16_000 } as const;

/** A memory's row and search chunk (as routes/memories.ts reserves them). */
const VECTOR_BYTES = 2048;

/** `RECALL_MAX_TOKENS`, checked (a bad value is a configuration error naming it). */
export function recallMaxTokens(env: Env): number {
  const raw = env.RECALL_MAX_TOKENS;
  if (raw === undefined || raw === '') return RECALL_DEFAULTS.maxTokens;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < RECALL_TOKEN_BOUNDS.min || n > RECALL_TOKEN_BOUNDS.max)
    throw new CtxError(
      'invalid_config',
      `must be an integer from ${RECALL_TOKEN_BOUNDS.min} to ${RECALL_TOKEN_BOUNDS.max} (tokens)`,
      { path: 'RECALL_MAX_TOKENS' },
    );
  return n;
}

/** The memory store with each write's bytes reserved against the tenant's limit first. */
function reservedStore(env: Env, tenant: string): MemoryStore {
  const store = createD1MemoryStore(env.DB);
  const quota = storageQuota(env, tenant);
  return {
    ...store,
    put: (record, vector) =>
      withReservation(quota, 2 * byteLength(record.title + record.content) + VECTOR_BYTES, () =>
        store.put(record, vector),
      ),
  };
}

/** The `recall` option of the session's pipeline. */
export function sessionRecall(env: Env, sql: SqlStorage, key: SessionKey): Recall {
  return createRecall({
    archive: createSessionArchive(sql, r2ArchiveBlobs(env.BLOBS, key)),
    memory: {
      store: reservedStore(env, key.tenant),
      tenant: key.tenant,
      sessionId: key.session,
      scope: 'session',
    },
    maxTokens: recallMaxTokens(env),
  });
}
