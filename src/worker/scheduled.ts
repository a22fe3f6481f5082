/**
 * The cron triggers (`wrangler.toml`): at 23:55 UTC the daily summary of every session active in the
 * last 24 hours (each through its Durable Object, skipped there when nothing changed; in batches of
 * `DAILY_PARALLEL`, resting between batches as long as the batch took (`DAILY_REST_RATIO`) so that
 * requests served by the same thread are never held behind the cron; each shared memory document is re-indexed once at
 * the end instead of once per session); at the
 * clean-up time, sessions idle for more than `SESSION_IDLE_DAYS` (30) with everything they own (each
 * through its Durable Object), expired memories (pinned ones never) and spilled outputs older than
 * `BLOB_RETENTION_DAYS` (7). The triggers run on Cloudflare's schedule, or by the operator through
 * `POST /v1/admin/cron` (src/worker/routes/admin.ts); no route without the admin token runs them.
 */
import { consolidateMemories, systemClock } from '../core/index.ts';
import { createR2BlobStore } from './blobs/r2-blob-store.ts';
import { workerEmbedder } from './embedder.ts';
import type { Env } from './env.ts';
import { indexMemoryDocument } from './session/daily-flush.ts';
import { sessionStub } from './session/stub.ts';
import { unwrap } from './session/wire.ts';
import { createD1MemoryStore, createD1SessionStore } from './store/d1-stores.ts';

export const DAILY_CRON = '55 23 * * *';
/** The clean-up's trigger in wrangler.toml (any other cron expression runs the clean-up too). */
export const CLEANUP_CRON = '17 3 * * *';
/**
 * Sessions summarised at once by the daily cron. Under `npm start` every object shares workerd's one
 * thread: 8 at once held `/health` for ~400 ms; 2 at once, with a rest after each batch, gave p99
 * 155 ms at load average 7, one at a time 68 ms (`npm run bench:service`, 1,000 sessions). @default 1
 */
export const DAILY_PARALLEL = 1;
const DAY = 86_400_000;

function days(raw: unknown, fallback: number): number {
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export interface DailyReport {
  sessions: number;
  flushed: number;
  unchanged: number;
  failed: number;
  /** Memory documents re-indexed (once each). */
  indexed: number;
  /** Wall time of the flushes and of the re-indexing (ms; in workerd the clock moves on I/O only). */
  flushMs: number;
  indexMs: number;
  /** Longest single session flush and single document re-index, as the cron awaited them (ms). */
  longestFlushMs: number;
  longestIndexMs: number;
}

/** Lets everything else waiting on this isolate run (a request, another object's call). */
const yieldTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Idle time after a batch, as a share of the batch's wall time. Under `npm start` the cron, every
 * session object and D1 share workerd's one thread: run back to back, the batches keep that thread
 * busy for the whole run, and on a loaded machine a busy process waits for the CPU behind every other
 * runnable one (a sleeping one is woken ahead of them), so each request waited ~80 ms
 * (issue 17: `/health` p50 80 ms, p99 257 ms at load average 9, against 2 / 111 ms with no cron).
 * Resting as long as the batch took keeps the thread at most half busy. @default 1
 */
export const DAILY_REST_RATIO = 1;
/** Longest rest after one batch (ms): a slow batch (a summarizer call) does not stall the cron. @default 250 */
export const DAILY_REST_MAX_MS = 250;

/** The rest after a batch that took `busyMs` (at least one turn of the event loop). */
function pause(busyMs: number): Promise<void> {
  const ms = Math.min(DAILY_REST_MAX_MS, Math.max(0, busyMs) * DAILY_REST_RATIO);
  return ms < 1 ? yieldTurn() : new Promise<void>((resolve) => setTimeout(resolve, ms));
}

export async function runDailySummaries(env: Env, now: number): Promise<DailyReport> {
  // Across tenants: the cron's work list.
  const results = await createD1SessionStore(env.DB).active(now - DAY);
  const report: DailyReport = {
    sessions: results.length,
    flushed: 0,
    unchanged: 0,
    failed: 0,
    indexed: 0,
    flushMs: 0,
    indexMs: 0,
    longestFlushMs: 0,
    longestIndexMs: 0,
  };
  /** tenant + '\n' + path → the project of the last session that wrote it (as when indexed per flush). */
  const written = new Map<string, { tenant: string; path: string; project: string }>();
  const flushOne = async (row: { tenant: string; id: string }) => {
    const key = { tenant: row.tenant, session: row.id };
    const started = Date.now();
    try {
      const result = unwrap(await sessionStub(env, key).daily(key, now));
      report.longestFlushMs = Math.max(report.longestFlushMs, Date.now() - started);
      if (result.status === 'flushed') {
        report.flushed++;
        for (const path of result.paths)
          written.set(`${row.tenant}\n${path}`, { tenant: row.tenant, path, project: result.project });
      } else report.unchanged++;
    } catch (error) {
      report.failed++;
      console.error(`ctxkit daily summary failed for ${row.tenant}:${row.id}`, error);
    }
  };
  // Each session's object summarises on its own; a few at a time keeps the cron inside its limits.
  const flushStarted = Date.now();
  for (let i = 0; i < results.length; i += DAILY_PARALLEL) {
    const started = Date.now();
    await Promise.all(results.slice(i, i + DAILY_PARALLEL).map(flushOne));
    await pause(Date.now() - started);
  }
  report.flushMs = Date.now() - flushStarted;
  const indexStarted = Date.now();
  const deps = { memories: createD1MemoryStore(env.DB), embedder: workerEmbedder(env), clock: systemClock };
  for (const doc of written.values()) {
    const started = Date.now();
    try {
      if (await indexMemoryDocument(deps, doc.tenant, doc.path, doc.project)) report.indexed++;
      report.longestIndexMs = Math.max(report.longestIndexMs, Date.now() - started);
    } catch (error) {
      console.error(`ctxkit daily summary: indexing ${doc.tenant}:${doc.path} failed`, error);
    }
    await yieldTurn();
  }
  report.indexMs = Date.now() - indexStarted;
  return report;
}

export interface CleanupReport {
  sessions: number;
  /** Memories deleted: the idle sessions' own, then every expired one. */
  memories: number;
  /** Spilled outputs deleted: the idle sessions' own, then every one past the retention. */
  blobs: number;
  /** Idle sessions whose deletion failed (logged; the next run tries again). */
  failed: number;
}

/** Idle sessions read at a time, and deleted at most per run (the rest wait for the next run). */
const IDLE_PAGE = 200;
export const CLEANUP_MAX_SESSIONS = 10_000;

interface IdleRow {
  tenant: string;
  id: string;
  last_active: number;
}

/** The next page of sessions idle since `before`, after `from` in (last_active, tenant, id) order. */
async function idlePage(db: D1Database, before: number, from: IdleRow | undefined): Promise<IdleRow[]> {
  const select = 'SELECT tenant, id, last_active FROM sessions WHERE last_active < ?';
  const order = `ORDER BY last_active, tenant, id LIMIT ${IDLE_PAGE}`;
  const query = from
    ? db
        .prepare(`${select} AND (last_active, tenant, id) > (?, ?, ?) ${order}`)
        .bind(before, from.last_active, from.tenant, from.id)
    : db.prepare(`${select} ${order}`).bind(before);
  return (await query.all<IdleRow>()).results;
}

/**
 * Each session idle since `before` is deleted through its own Durable Object, which deletes
 * everything it owns (session-deletion.ts) and checks again that it is still idle.
 */
async function removeIdleSessions(
  env: Env,
  before: number,
  blobsExpireBefore: number,
  report: CleanupReport,
): Promise<void> {
  let from: IdleRow | undefined;
  let seen = 0;
  while (seen < CLEANUP_MAX_SESSIONS) {
    const page = await idlePage(env.DB, before, from);
    if (page.length === 0) return;
    for (const row of page) {
      const key = { tenant: row.tenant, session: row.id };
      try {
        const result = unwrap(
          await sessionStub(env, key).remove(key, { idleBefore: before, blobsExpireBefore }),
        );
        if (result.deleted) report.sessions++;
        report.memories += result.memories;
        report.blobs += result.blobs;
      } catch (error) {
        report.failed++;
        console.error(`ctxkit clean-up: deleting ${row.tenant}:${row.id} failed`, error);
      }
      await yieldTurn();
    }
    seen += page.length;
    from = page[page.length - 1];
  }
}

export async function runCleanup(env: Env, now: number): Promise<CleanupReport> {
  const report: CleanupReport = { sessions: 0, memories: 0, blobs: 0, failed: 0 };
  const blobsBefore = now - days(env.BLOB_RETENTION_DAYS, 7) * DAY;
  await removeIdleSessions(env, now - days(env.SESSION_IDLE_DAYS, 30) * DAY, blobsBefore, report);
  const memoryStore = createD1MemoryStore(env.DB);
  // Only expiry here: the cap on compaction memories is per project, applied after each compaction.
  const onlyExpired = { now, keepCompaction: Number.MAX_SAFE_INTEGER };
  for (const tenant of await memoryStore.tenantsWithExpired(now))
    report.memories += (await consolidateMemories(memoryStore, tenant, onlyExpired)).length;
  report.blobs += await createR2BlobStore({ bucket: env.BLOBS, prefix: 't/' }).cleanup(blobsBefore);
  return report;
}

export async function runScheduled(
  cron: string,
  time: number,
  env: Env,
): Promise<DailyReport | CleanupReport> {
  if (cron === DAILY_CRON) {
    const report = await runDailySummaries(env, time);
    console.log('ctxkit daily summaries', JSON.stringify(report));
    return report;
  }
  const report = await runCleanup(env, time);
  console.log('ctxkit clean-up', JSON.stringify(report));
  return report;
}
