/**
 * One Durable Object per session (`idFromName(tenant + ':' + session)`). Every write of the session
 * goes through it and runs one at a time (`write-queue.ts`: D1 calls and summarizer
 * fetches open the input gate, so the gate alone would let writes interleave). Compaction never runs
 * twice at once: a second request while one is queued or running gets 409, and a persisted
 * `compacting` flag tells a restarted object that an earlier one died mid-way (its result was never
 * written, because a run's state is saved in one write at the end, so nothing is lost and the next
 * compaction simply runs again). D1 is the system of record: this object caches the pipeline, the
 * set of message ids and a view of the session (`session-cache.ts`), and keeps the session settings
 * and the daily-flush mark in its storage. Its state, idempotent writes and the proxy's calls are in
 * session-object-base.ts.
 */

import { CtxError, parseWith, type SessionInfo } from '../../core/index.ts';
import { sessionDeleted, withSessionPlace } from '../limits/session-quota.ts';
import { messagesBytes, sessionRowBytes, storageQuota, withReservation } from '../limits/storage-quota.ts';
import { workerSummarizer } from '../summarizer.ts';
import type { FaultPoint } from '../test-faults.ts';
import { type AppendResult, appendResult, commitAppend, stageAppend } from './append.ts';
import { type CallView, callView } from './call-view.ts';
import { type DailyFlushResult, type DailyMark, dailyFlush } from './daily-flush.ts';
import { type AppendBody, parseIncoming } from './formats.ts';
import type { Idempotency, MaybeReplayed } from './idempotency.ts';
import { appendCheck } from './idempotent-writes.ts';
import { clearSessionArchive } from './session-archive.ts';
import { type DeleteOptions, deleteSessionData, type SessionDeletion } from './session-deletion.ts';
import { COMPACTING, INTERRUPTED, SETTINGS } from './session-object-base.ts';
import { SessionToolsBase } from './session-object-tools.ts';
import { buildPipeline, defaultPreset } from './session-ports.ts';
import {
  type ContextInput,
  type ContextResult,
  compactContext,
  prepareContext,
  recoverOverflow,
} from './session-service.ts';
import { type SessionStats, sessionStats } from './session-stats.ts';
import { type SessionView, sessionView } from './session-view.ts';
import { boundedSettings, settingsSchema } from './settings.ts';
import { type Outcome, outcome, type SessionKey } from './wire.ts';

const DAILY = 'daily';

export interface CompactionStatus {
  running: boolean;
  /** When a compaction that an eviction or crash interrupted had started (ms), if any. */
  interruptedAt: number | null;
}

export class SessionObject extends SessionToolsBase {
  async create(
    key: SessionKey,
    input: { title?: string | undefined; project?: string | undefined; settings: unknown },
    idem?: Idempotency,
  ): Promise<Outcome<MaybeReplayed<SessionInfo>>> {
    return outcome(() =>
      this.serial(() =>
        this.idem.ahead(key, idem, async () => {
          const settings = boundedSettings(parseWith(settingsSchema, input.settings, []));
          // Invalid preset config fails here, before anything is stored.
          const built = buildPipeline(this.env, settings, key, this.recallOptions(settings, key));
          const { sessions } = this.storePorts(key);
          if (await sessions.get(key.tenant, key.session))
            throw new CtxError('conflict', `session ${key.session} already exists`, { path: 'id' });
          // An id used again starts empty, even where an older deletion left this object's storage
          // (before this create's own idempotency record is written).
          await this.forget();
          return {
            check: { kind: 'create' as const },
            // A place among the tenant's sessions first (session-quota.ts): refused, nothing is stored.
            commit: () =>
              withSessionPlace(this.env, key.tenant, async () => {
                await this.ctx.storage.put(SETTINGS, settings);
                this.cachedSettings = settings;
                const info = await withReservation(
                  storageQuota(this.env, key.tenant),
                  sessionRowBytes(input.title, input.project),
                  () =>
                    sessions.create({
                      tenant: key.tenant,
                      id: key.session,
                      ...(input.title !== undefined ? { title: input.title } : {}),
                      ...(input.project !== undefined ? { project: input.project } : {}),
                    }),
                );
                this.pipeline = built.pipeline;
                this.spills = built.spills;
                this.ids = new Set();
                return info;
              }),
          };
        }),
      ),
    );
  }

  async append(
    key: SessionKey,
    body: AppendBody,
    idem?: Idempotency,
    fault?: FaultPoint,
  ): Promise<Outcome<MaybeReplayed<AppendResult>>> {
    return outcome(() =>
      this.serial(() =>
        this.idem.ahead(
          key,
          idem,
          async () => {
            const parsed = parseIncoming(body);
            const deps = await this.deps(key);
            const known = this.knownIds(deps, key);
            // After validation and after the replay: the bytes it is about to store, reserved until
            // its write succeeded (given back if it fails).
            const bytes = messagesBytes(parsed.messages);
            await deps.quota?.reserve(bytes);
            const giveBack = async (error: unknown) => {
              await deps.quota?.unreserve(bytes).catch(() => undefined);
              throw error;
            };
            const staged = await stageAppend(deps, key, parsed, known).catch(giveBack);
            return {
              value: appendResult(staged),
              check: appendCheck(staged.afterSeq, staged.messages),
              commit: () => commitAppend(deps, key, staged, known).catch(giveBack),
            };
          },
          fault,
        ),
      ),
    );
  }

  async prepare(key: SessionKey, input: ContextInput): Promise<Outcome<ContextResult>> {
    return this.afterAnswer(
      await outcome(() =>
        this.serial(async () => prepareContext(await this.deps(key), key, input, this.proxy().calls)),
      ),
    );
  }

  async compact(
    key: SessionKey,
    input: ContextInput & { instructions?: string | undefined },
    idem?: Idempotency,
  ): Promise<Outcome<MaybeReplayed<ContextResult>>> {
    return outcome(async () => {
      if (this.compacting)
        throw new CtxError('conflict', 'a compaction of this session is already running', {
          path: 'session',
        });
      this.compacting = true;
      try {
        return await this.serial(() =>
          this.idem.once(idem, async () => {
            await this.ctx.storage.put(COMPACTING, Date.now());
            try {
              const result = await compactContext(await this.deps(key), key, input, this.proxy().calls);
              await this.ctx.storage.delete(INTERRUPTED);
              return result;
            } finally {
              await this.ctx.storage.delete(COMPACTING);
            }
          }),
        );
      } finally {
        this.compacting = false;
      }
    });
  }

  async recover(
    key: SessionKey,
    input: ContextInput & { error: string },
  ): Promise<Outcome<ContextResult & { retry: boolean; cleared: boolean }>> {
    return outcome(() =>
      this.serial(async () => recoverOverflow(await this.deps(key), key, input, this.proxy().calls)),
    );
  }

  async clear(key: SessionKey, input: { purge?: boolean | undefined }): Promise<Outcome<{ cleared: true }>> {
    return outcome(() =>
      this.serial(async () => {
        const deps = await this.deps(key);
        if (!(await deps.sessions.get(key.tenant, key.session)))
          throw new CtxError('not_found', `session ${key.session} not found`, { path: 'params.session' });
        await deps.sessions.clear(key.tenant, key.session, { purge: input.purge === true });
        this.cache.view = undefined;
        if (input.purge) {
          clearSessionArchive(this.ctx.storage.sql);
          this.ids = new Set();
          deps.size?.forget();
        }
        return { cleared: true as const };
      }),
    );
  }

  /**
   * Deletes the session and everything it owns (`session-deletion.ts`, large messages included); with
   * `idleBefore` (the clean-up cron), only when it has been idle since then.
   */
  async remove(key: SessionKey, options: DeleteOptions = {}): Promise<Outcome<SessionDeletion>> {
    return outcome(() =>
      this.serial(async () => {
        const result = await deleteSessionData(await this.deps(key), this.env.BLOBS, key, options);
        if (result.deleted) {
          await this.forget();
          // Its place among the tenant's sessions is free at once; a failure here waits for the next count.
          await sessionDeleted(this.env, key.tenant).catch(() => undefined);
        }
        return result;
      }),
    );
  }

  /** Read-only; not queued. */
  async stats(key: SessionKey): Promise<Outcome<SessionStats & { compaction: CompactionStatus }>> {
    return outcome(async () => {
      const stats = await sessionStats(await this.deps(key), key);
      const interrupted = await this.ctx.storage.get<number>(INTERRUPTED);
      return { ...stats, compaction: { running: this.compacting, interruptedAt: interrupted ?? null } };
    });
  }

  /** Read-only; not queued. The context view's data (`session-view.ts`), one page of the timeline. */
  async view(key: SessionKey, page?: { offset?: number; limit?: number }): Promise<Outcome<SessionView>> {
    return outcome(async () => sessionView(await this.deps(key), key, this.proxy().calls, page));
  }

  /** Read-only; not queued. A call page's data (`call-view.ts`). */
  async callView(key: SessionKey, id: string): Promise<Outcome<CallView>> {
    return outcome(async () => {
      const deps = await this.deps(key);
      const view = await callView(deps, this.storePorts(key).sessions, key, this.proxy().calls, id);
      if (!view) throw new CtxError('not_found', `call ${id} not found`, { path: 'params.call' });
      return view;
    });
  }

  /** The cron's daily summary of this session. */
  async daily(key: SessionKey, now: number): Promise<Outcome<DailyFlushResult>> {
    return outcome(() =>
      this.serial(async () => {
        // The daily file is dated by the cron's scheduled time, not by when this call runs.
        const deps = { ...(await this.deps(key)), clock: { now: () => now } };
        const last = (await this.ctx.storage.get<DailyMark>(DAILY)) ?? null;
        const settings = await this.settings();
        const result = await dailyFlush(
          deps,
          key,
          workerSummarizer(this.env).summarizer,
          settings.preset ?? defaultPreset(this.env),
          last,
        );
        if (result.mark) await this.ctx.storage.put(DAILY, result.mark);
        return result;
      }),
    );
  }
}
