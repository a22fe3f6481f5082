/**
 * One Durable Object per session (`idFromName(tenant + ':' + session)`). Every write of the session
 * goes through it and runs one at a time (`write-queue.ts`: D1 calls and summarizer
 * fetches open the input gate, so the gate alone would let writes interleave). Compaction never runs
 * twice at once: a second request while one is queued or running gets 409, and a persisted
 * `compacting` flag tells a restarted object that an earlier one died mid-way (its result was never
 * written, because a run's state is saved in one write at the end, so nothing is lost and the next
 * compaction simply runs again). D1 is the system of record: this object caches the pipeline, the
 * set of message ids and a view of the session (`session-cache.ts`), and keeps the session settings
 * and the daily-flush mark in its storage.
 */
import { DurableObject } from 'cloudflare:workers';
import {
  type BudgetConfig,
  CtxError,
  createPipeline,
  isCtxError,
  type Pipeline,
  type PipelineOptions,
  parseWith,
  randomIds,
  type SessionInfo,
  systemClock,
} from '../../core/index.ts';
import { createR2BlobStore, tenantBlobPrefix } from '../blobs/r2-blob-store.ts';
import { workerEmbedder } from '../embedder.ts';
import type { Env } from '../env.ts';
import { messagesBytes, sessionRowBytes, storageQuota, withReservation } from '../limits/storage-quota.ts';
import { type CallRecord, createProxyStorage } from '../proxy/call-log.ts';
import {
  type Prepared,
  type ProxyCommit,
  type ProxyRecordInput,
  type ProxyRecoverInput,
  type ProxyStorage,
  type ProxyTurnInput,
  type ProxyTurnOutcome,
  proxyRecord,
  proxyRecover,
  proxyTurn,
} from '../proxy/proxy-session.ts';
import { createD1MemoryStore, createD1SessionStore } from '../store/d1-stores.ts';
import { workerSummarizer } from '../summarizer.ts';
import { aheadAfterAnswer, prepareAfterAnswer } from './ahead-after-answer.ts';
import { type AppendResult, appendMessages, type KnownIds } from './append.ts';
import { type CallView, callView } from './call-view.ts';
import { type DailyFlushResult, type DailyMark, dailyFlush } from './daily-flush.ts';
import { type AppendBody, parseIncoming } from './formats.ts';
import {
  IDEMPOTENCY_PREFIX,
  IDEMPOTENCY_TTL_MS,
  type Idempotency,
  type IdempotencyRecord,
  type MaybeReplayed,
  mismatch,
} from './idempotency.ts';
import { d1DocumentAppender } from './memory-documents.ts';
import type { SessionCache } from './session-cache.ts';
import { type DeleteOptions, deleteSessionData, type SessionDeletion } from './session-deletion.ts';
import { extractedReach } from './session-memory.ts';
import {
  type ContextInput,
  type ContextResult,
  compactContext,
  prepareContext,
  recoverOverflow,
  type SessionDeps,
} from './session-service.ts';
import { type SessionStats, sessionStats } from './session-stats.ts';
import { type SessionView, sessionView } from './session-view.ts';
import { PRESETS, type PresetId, type SessionSettings, settingsSchema } from './settings.ts';
import { createTurnWrites } from './turn-writes.ts';
import { type Outcome, outcome, type SessionKey } from './wire.ts';
import { createWriteQueue } from './write-queue.ts';

const SETTINGS = 'settings';
const COMPACTING = 'compacting';
const INTERRUPTED = 'interruptedCompaction';
const DAILY = 'daily';

export interface CompactionStatus {
  running: boolean;
  /** When a compaction that an eviction or crash interrupted had started (ms), if any. */
  interruptedAt: number | null;
}

export class SessionObject extends DurableObject<Env> {
  // A write that failed half-way may have left D1 ahead of the cache: read it again next time.
  private readonly queue = createWriteQueue({
    onFailure: () => {
      this.cache.view = undefined;
    },
  });
  private compacting = false;
  private pipeline: Pipeline | undefined;
  private ids: Set<string> | undefined;
  private readonly cache: SessionCache = {};

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      // A flag left by a previous instance means that compaction never finished: record and clear it.
      const stale = await ctx.storage.get<number>(COMPACTING);
      if (stale !== undefined) {
        await ctx.storage.put(INTERRUPTED, stale);
        await ctx.storage.delete(COMPACTING);
      }
    });
  }

  /** Runs `fn` after every write queued before it. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => ({ value: await fn() }));
  }

  private idempotentWrites = 0;

  /**
   * Inside the write queue: the stored first answer for `idem`, or `run()` and its answer stored.
   * Every 64 stored answers, those older than `IDEMPOTENCY_TTL_MS` are dropped.
   */
  private async once<T>(idem: Idempotency | undefined, run: () => Promise<T>): Promise<MaybeReplayed<T>> {
    if (!idem) return { value: await run(), replayed: false };
    const name = IDEMPOTENCY_PREFIX + idem.key;
    const stored = await this.ctx.storage.get<IdempotencyRecord>(name);
    const now = Date.now();
    if (stored && now - stored.at < IDEMPOTENCY_TTL_MS) {
      if (stored.hash !== idem.hash) throw mismatch();
      return { value: stored.value as T, replayed: true };
    }
    const value = await run();
    await this.ctx.storage.put(name, { hash: idem.hash, at: now, value } satisfies IdempotencyRecord);
    if (++this.idempotentWrites % 64 === 0) {
      const all = await this.ctx.storage.list<IdempotencyRecord>({ prefix: IDEMPOTENCY_PREFIX });
      const old = [...all].filter(([, r]) => now - r.at >= IDEMPOTENCY_TTL_MS).map(([k]) => k);
      for (let i = 0; i < old.length; i += 128) await this.ctx.storage.delete(old.slice(i, i + 128));
    }
    return { value, replayed: false };
  }

  /** The settings, read from storage once per object (only `create` and `remove` change them). */
  private cachedSettings: SessionSettings | undefined;

  private async settings(): Promise<SessionSettings> {
    this.cachedSettings ??= (await this.ctx.storage.get<SessionSettings>(SETTINGS)) ?? {};
    return this.cachedSettings;
  }

  /** `DEFAULT_PRESET` when it names a preset, else `default`. */
  private defaultPreset(): PresetId {
    const preset = this.env.DEFAULT_PRESET;
    return PRESETS.includes(preset as PresetId) ? (preset as PresetId) : 'default';
  }

  private buildPipeline(settings: SessionSettings, key: SessionKey): Pipeline {
    const { summarizer } = workerSummarizer(this.env);
    const pipeline = createPipeline({
      preset: settings.preset ?? this.defaultPreset(),
      summarizer,
      // Each spilled output records the session, so deleting the session finds it.
      blobs: createR2BlobStore({
        bucket: this.env.BLOBS,
        prefix: tenantBlobPrefix(key.tenant),
        session: key.session,
      }),
      ...(settings.budget ? { budget: settings.budget as Partial<BudgetConfig> } : {}),
      ...(settings.config ? { config: settings.config as PipelineOptions['config'] & object } : {}),
      ...(settings.excludeTools ? { excludeTools: settings.excludeTools } : {}),
      // A turn below the blocking level never waits for a summary (`ahead-after-answer.ts`).
      ahead: 'auto',
    });
    return aheadAfterAnswer(pipeline);
  }

  /** After answering: the session's next compaction is prepared in this object (`ahead-after-answer.ts`). */
  private afterAnswer<T>(answer: T): T {
    this.ctx.waitUntil(prepareAfterAnswer(this.pipeline));
    return answer;
  }

  /** The D1 stores and the other ports, built once per object (they hold no session state). */
  private ports: Omit<SessionDeps, 'memory' | 'pipeline' | 'cache'> | undefined;

  private async deps(key: SessionKey): Promise<SessionDeps> {
    const settings = await this.settings();
    if (!this.pipeline) this.pipeline = this.buildPipeline(settings, key);
    this.ports ??= {
      sessions: createD1SessionStore(this.env.DB),
      memories: createD1MemoryStore(this.env.DB),
      clock: systemClock,
      ids: randomIds,
      documents: d1DocumentAppender(this.env.DB),
      embedder: workerEmbedder(this.env),
      memoryReach: extractedReach(this.env),
      quota: storageQuota(this.env, key.tenant),
    };
    return { ...this.ports, memory: settings.memory, pipeline: this.pipeline, cache: this.cache };
  }

  async create(
    key: SessionKey,
    input: { title?: string | undefined; project?: string | undefined; settings: unknown },
    idem?: Idempotency,
  ): Promise<Outcome<MaybeReplayed<SessionInfo>>> {
    return outcome(() =>
      this.serial(() =>
        this.once(idem, async () => {
          const settings = parseWith(settingsSchema, input.settings, []);
          // Invalid preset config fails here, before anything is stored.
          const pipeline = this.buildPipeline(settings, key);
          const sessions = createD1SessionStore(this.env.DB);
          if (await sessions.get(key.tenant, key.session))
            throw new CtxError('conflict', `session ${key.session} already exists`, { path: 'id' });
          // An id used again starts empty, even where an older deletion left this object's storage.
          await this.forget();
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
          this.pipeline = pipeline;
          this.ids = new Set();
          this.cache.view = undefined;
          return info;
        }),
      ),
    );
  }

  async append(
    key: SessionKey,
    body: AppendBody,
    idem?: Idempotency,
  ): Promise<Outcome<MaybeReplayed<AppendResult>>> {
    return outcome(() =>
      this.serial(() =>
        this.once(idem, async () => {
          const parsed = parseIncoming(body);
          const deps = await this.deps(key);
          // After validation and after the replay above: the bytes it is about to store, reserved.
          return withReservation(deps.quota, messagesBytes(parsed.messages), () =>
            appendMessages(deps, key, parsed, this.knownIds(deps, key)),
          );
        }),
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
          this.once(idem, async () => {
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
        if (input.purge) this.ids = new Set();
        return { cleared: true as const };
      }),
    );
  }

  /**
   * Deletes the session and everything it owns (`session-deletion.ts`); with `idleBefore` (the
   * clean-up cron), only when it has been idle since then.
   */
  async remove(key: SessionKey, options: DeleteOptions = {}): Promise<Outcome<SessionDeletion>> {
    return outcome(() =>
      this.serial(async () => {
        const result = await deleteSessionData(await this.deps(key), this.env.BLOBS, key, options);
        if (result.deleted) await this.forget();
        return result;
      }),
    );
  }

  /** Drops every trace of a session from this object: its storage and what it keeps in memory. */
  private async forget(): Promise<void> {
    this.ids = undefined;
    this.pipeline = undefined;
    this.cache.view = undefined;
    this.cachedSettings = undefined;
    this.proxyStorage = undefined;
    await this.ctx.storage.deleteAll();
  }

  private knownIds(deps: SessionDeps, key: SessionKey): KnownIds {
    return async () => {
      this.ids ??= new Set((await deps.sessions.messages(key.tenant, key.session)).map((r) => r.message.id));
      return this.ids;
    };
  }

  private proxyStorage: ProxyStorage | undefined;

  /** The proxy's part of the object's storage (its divergence ranges cached). */
  private proxy(): ProxyStorage {
    this.proxyStorage ??= createProxyStorage(this.ctx.storage);
    return this.proxyStorage;
  }

  /** Turn writes under way or settled, by call id, until `proxyCommit` collects them. */
  private readonly writes = createTurnWrites();

  /**
   * Drop-in proxy (src/worker/proxy): new history in, the context to send out. The context comes back
   * while the new rows and state are still being written; the Worker sends it upstream meanwhile and
   * asks `proxyCommit` before it releases the answer. The queue holds every later call of the session
   * behind that write.
   */
  async proxyTurn(key: SessionKey, input: ProxyTurnInput): Promise<Outcome<ProxyTurnOutcome>> {
    const answer = await outcome(() =>
      this.queue.run(async () => {
        const deps = await this.deps(key);
        const started = await proxyTurn(deps, key, input, this.knownIds(deps, key), this.proxy());
        if (started.write) this.writes.track(input.call.id, started.write);
        return { value: started.outcome, after: started.write };
      }),
    );
    return this.afterAnswer(answer);
  }

  /** Waits for the write of call `callId`'s turn: its error, or what it reports once D1 holds it. */
  proxyCommit(_key: SessionKey, callId: string): Promise<Outcome<ProxyCommit>> {
    return this.writes.collect(callId);
  }

  async proxyRecover(
    key: SessionKey,
    input: ProxyRecoverInput,
  ): Promise<Outcome<Prepared & { retry: boolean }>> {
    return outcome(() =>
      this.serial(async () => {
        const learned = input.window !== undefined && (await this.learnWindow(key, input.window));
        return proxyRecover(await this.deps(key), key, { ...input, learned }, this.proxy().calls);
      }),
    );
  }

  /**
   * The window a provider stated in a context-length error becomes the session's, when it is smaller
   * than the one the session has and the preset can work in it; later calls are prepared for it.
   */
  private async learnWindow(key: SessionKey, window: number): Promise<boolean> {
    const settings = await this.settings();
    const current = (await this.deps(key)).pipeline.budget.contextWindow;
    if (!Number.isSafeInteger(window) || window < 1 || window >= current) return false;
    const next: SessionSettings = { ...settings, budget: { ...settings.budget, contextWindow: window } };
    let pipeline: Pipeline;
    try {
      pipeline = this.buildPipeline(next, key);
    } catch (error) {
      if (isCtxError(error, 'invalid_config')) return false;
      throw error;
    }
    await this.ctx.storage.put(SETTINGS, next);
    this.cachedSettings = next;
    this.pipeline = pipeline;
    return true;
  }

  async proxyRecord(key: SessionKey, input: ProxyRecordInput): Promise<Outcome<{ logged: boolean }>> {
    return outcome(() =>
      this.serial(async () => {
        const deps = await this.deps(key);
        return proxyRecord(deps, key, input, this.knownIds(deps, key), this.proxy().calls);
      }),
    );
  }

  /** Read-only; not queued. */
  async proxyCall(_key: SessionKey, id: string): Promise<Outcome<CallRecord>> {
    return outcome(async () => {
      const record = await this.proxy().calls.get(id);
      if (!record) throw new CtxError('not_found', `call ${id} not found`, { path: 'params.call' });
      return record;
    });
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
      const view = await callView(await this.deps(key), key, this.proxy().calls, id);
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
          settings.preset ?? this.defaultPreset(),
          last,
        );
        if (result.mark) await this.ctx.storage.put(DAILY, result.mark);
        return result;
      }),
    );
  }
}
