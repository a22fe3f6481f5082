/**
 * The state and machinery of a session's Durable Object (session-object.ts has its routes): the write
 * queue, the settings, the pipeline and the ports built once, idempotent writes (idempotent-writes.ts),
 * and the drop-in proxy's calls (src/worker/proxy/proxy-session.ts does their work): a turn's context
 * goes back while its rows and state are still being written, the Worker collects that write
 * (`proxyCommit`) before it releases the answer, and logs the answer once it is known.
 */

import { DurableObject } from 'cloudflare:workers';
import { CtxError, isCtxError, type Pipeline, type Recall } from '../../core/index.ts';
import type { SessionBlobs } from '../blobs/session-blobs.ts';
import type { Env } from '../env.ts';
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
import { withStoreLimits } from '../store/d1-value-limit.ts';
import { prepareAfterAnswer } from './ahead-after-answer.ts';
import type { KnownIds } from './append.ts';
import { idempotentWrites } from './idempotent-writes.ts';
import type { SessionCache } from './session-cache.ts';
import { buildPipeline, type SessionPorts, sessionPorts } from './session-ports.ts';
import { sessionRecall } from './session-recall.ts';
import type { SessionDeps } from './session-service.ts';
import type { SessionSettings } from './settings.ts';
import { createTurnWrites } from './turn-writes.ts';
import { type Outcome, outcome, type SessionKey } from './wire.ts';
import { createWriteQueue } from './write-queue.ts';

export const SETTINGS = 'settings';
export const COMPACTING = 'compacting';
export const INTERRUPTED = 'interruptedCompaction';

export abstract class SessionObjectBase extends DurableObject<Env> {
  // A write that failed half-way may have left D1 ahead of the cache: read it again next time.
  protected readonly queue = createWriteQueue({
    onFailure: () => {
      this.cache.view = undefined;
      this.ids = undefined;
      this.ports?.size.forget();
    },
  });
  protected compacting = false;
  protected pipeline: Pipeline | undefined;
  protected spills: SessionBlobs | undefined;
  protected ids: Set<string> | undefined;
  protected readonly cache: SessionCache = {};
  protected readonly idem = idempotentWrites(this.ctx.storage, (key) => this.storePorts(key).sessions);

  constructor(ctx: DurableObjectState, env: Env) {
    // D1 refuses a value over 2 MB in production only: checked here too (store/d1-value-limit.ts).
    super(ctx, withStoreLimits(env));
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
  protected serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => ({ value: await fn() }));
  }

  /** The settings, read from storage once per object (only `create` and `remove` change them). */
  protected cachedSettings: SessionSettings | undefined;

  protected async settings(): Promise<SessionSettings> {
    this.cachedSettings ??= (await this.ctx.storage.get<SessionSettings>(SETTINGS)) ?? {};
    return this.cachedSettings;
  }

  /** After answering: the session's next compaction is prepared in this object (`ahead-after-answer.ts`). */
  protected afterAnswer<T>(answer: T): T {
    this.ctx.waitUntil(prepareAfterAnswer(this.pipeline));
    return answer;
  }

  /** The D1 stores and the other ports, built once per object (they hold no session state). */
  protected ports: SessionPorts | undefined;

  protected storePorts(key: SessionKey): SessionPorts {
    this.ports ??= sessionPorts(this.env, key.tenant);
    return this.ports;
  }

  protected usePipeline(settings: SessionSettings, key: SessionKey): void {
    const built = buildPipeline(this.env, settings, key, this.recallOptions(settings, key));
    this.pipeline = built.pipeline;
    this.spills = built.spills;
  }

  /** The session's recall archive (in this object's storage) and tools, when its settings turn them on. */
  protected recallOptions(settings: SessionSettings, key: SessionKey): Recall | undefined {
    return settings.recall === true ? sessionRecall(this.env, this.ctx.storage.sql, key) : undefined;
  }

  protected async deps(key: SessionKey): Promise<SessionDeps> {
    const settings = await this.settings();
    if (!this.pipeline) this.usePipeline(settings, key);
    return {
      ...this.storePorts(key),
      memory: settings.memory,
      pipeline: this.pipeline!,
      cache: this.cache,
      spills: this.spills,
    };
  }

  /** Drops every trace of a session from this object: its storage and what it keeps in memory. */
  protected async forget(): Promise<void> {
    this.ids = undefined;
    this.pipeline = undefined;
    this.spills = undefined;
    this.cache.view = undefined;
    this.cachedSettings = undefined;
    this.proxyStorage = undefined;
    this.ports?.size.forget();
    await this.ctx.storage.deleteAll();
  }

  protected knownIds(deps: SessionDeps, key: SessionKey): KnownIds {
    return async () => {
      this.ids ??= new Set((await deps.sessions.messages(key.tenant, key.session)).map((r) => r.message.id));
      return this.ids;
    };
  }

  protected proxyStorage: ProxyStorage | undefined;

  /** The proxy's part of the object's storage (its divergence ranges cached). */
  protected proxy(): ProxyStorage {
    this.proxyStorage ??= createProxyStorage(this.ctx.storage);
    return this.proxyStorage;
  }

  /** Turn writes under way or settled, by call id, until `proxyCommit` collects them. */
  protected readonly writes = createTurnWrites();

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
  protected async learnWindow(key: SessionKey, window: number): Promise<boolean> {
    const settings = await this.settings();
    const current = (await this.deps(key)).pipeline.budget.contextWindow;
    if (!Number.isSafeInteger(window) || window < 1 || window >= current) return false;
    const next: SessionSettings = { ...settings, budget: { ...settings.budget, contextWindow: window } };
    let built: ReturnType<typeof buildPipeline>;
    try {
      built = buildPipeline(this.env, next, key, this.recallOptions(next, key));
    } catch (error) {
      if (isCtxError(error, 'invalid_config')) return false;
      throw error;
    }
    await this.ctx.storage.put(SETTINGS, next);
    this.cachedSettings = next;
    this.pipeline = built.pipeline;
    this.spills = built.spills;
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
}
