/**
 * What a session's Durable Object builds once and keeps: the session's pipeline (its preset, budget,
 * config and the session's own view of the blob store, session-blobs.ts) and the ports every run uses
 * (the D1 stores with large messages in R2, the embedder, the clock, the size bound).
 */
import {
  type BudgetConfig,
  createPipeline,
  type Pipeline,
  type PipelineOptions,
  type Recall,
  randomIds,
  systemClock,
} from '../../core/index.ts';
import type { SqlSessionStore } from '../../db/sql/sql-session-store.ts';
import { createR2BlobStore, tenantBlobPrefix } from '../blobs/r2-blob-store.ts';
import { type SessionBlobs, sessionBlobs } from '../blobs/session-blobs.ts';
import { workerEmbedder } from '../embedder.ts';
import type { Env } from '../env.ts';
import { storageQuota } from '../limits/storage-quota.ts';
import { serviceBounds } from '../service-bounds.ts';
import { createD1MemoryStore, createD1SessionStore } from '../store/d1-stores.ts';
import { workerSummarizer } from '../summarizer.ts';
import { aheadAfterAnswer } from './ahead-after-answer.ts';
import { d1DocumentAppender } from './memory-documents.ts';
import type { SessionDeps } from './session-deps.ts';
import { extractedReach } from './session-memory.ts';
import { createSessionSize, type SessionSize } from './session-size.ts';
import { PRESETS, type PresetId, type SessionSettings } from './settings.ts';
import type { SessionKey } from './wire.ts';

/** `DEFAULT_PRESET` when it names a preset, else `default`. */
export function defaultPreset(env: Env): PresetId {
  const preset = env.DEFAULT_PRESET;
  return PRESETS.includes(preset as PresetId) ? (preset as PresetId) : 'default';
}

/**
 * The session's pipeline and the view of the blob store it spills into (invalid config throws); with
 * `recall`, what leaves the context is archived and the recall tools answer (session-recall.ts).
 */
export function buildPipeline(
  env: Env,
  settings: SessionSettings,
  key: SessionKey,
  recall?: Recall,
): { pipeline: Pipeline; spills: SessionBlobs } {
  const { summarizer } = workerSummarizer(env);
  // Each spilled output records the session, so deleting the session finds it.
  const spills = sessionBlobs(
    createR2BlobStore({ bucket: env.BLOBS, prefix: tenantBlobPrefix(key.tenant), session: key.session }),
    key.session,
  );
  const pipeline = createPipeline({
    preset: settings.preset ?? defaultPreset(env),
    summarizer,
    blobs: spills.store,
    ...(settings.budget ? { budget: settings.budget as Partial<BudgetConfig> } : {}),
    ...(settings.config ? { config: settings.config as PipelineOptions['config'] & object } : {}),
    ...(settings.excludeTools ? { excludeTools: settings.excludeTools } : {}),
    // A turn below the blocking level never waits for a summary (`ahead-after-answer.ts`).
    ahead: 'auto',
    ...(recall ? { recall } : {}),
  });
  return { pipeline: aheadAfterAnswer(pipeline), spills };
}

/** The ports of a session's runs that hold no session state, built once per object. */
export interface SessionPorts extends Omit<SessionDeps, 'memory' | 'pipeline' | 'cache' | 'spills'> {
  sessions: SqlSessionStore;
  size: SessionSize;
}

export function sessionPorts(env: Env, tenant: string): SessionPorts {
  return {
    sessions: createD1SessionStore(env.DB, { blobs: env.BLOBS }),
    memories: createD1MemoryStore(env.DB),
    clock: systemClock,
    ids: randomIds,
    documents: d1DocumentAppender(env.DB),
    embedder: workerEmbedder(env),
    memoryReach: extractedReach(env),
    quota: storageQuota(env, tenant),
    size: createSessionSize(serviceBounds(env).sessionBytes),
  };
}
