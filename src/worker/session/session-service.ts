/**
 * What a session's Durable Object does, as plain functions over the ports: the D1 stores, the
 * tenant's blob store, the summarizer, a clock and ids. The DO adds serialization and the
 * persisted compaction flag; everything here reads and writes D1 (the system of record).
 */
import {
  CtxError,
  clearMemoryBlock,
  type DroppedEntry,
  type JournalEntry,
  type JsonValue,
  journalFor,
  type PipelineEvent,
  type PipelineRun,
  resolveWorkingContext,
  type SessionInfo,
  type SessionState,
  type StageReport,
  sameSessionState,
  toWorkingContext,
} from '../../core/index.ts';
import {
  type AddedMemory,
  addedMemory,
  boundedRefs,
  type CallKind,
  type CallLog,
  messageRefs,
} from '../proxy/call-log.ts';
import { callTexts, TextBatch } from '../proxy/call-texts.ts';
import { type OutputDialect, type Rendered, renderMessages, toDialect } from './formats.ts';
import { afterSetState, freshView, rememberView } from './session-cache.ts';
import type { Loaded, SessionDeps } from './session-deps.ts';
import { saveExtracted, withMemoryBlock, writeFlushes } from './session-memory.ts';
import type { SessionKey } from './wire.ts';

export type { Loaded, SessionDeps } from './session-deps.ts';

export interface ContextInput {
  dialect?: OutputDialect | undefined;
  /** The caller's system prompt; the memory block is appended to it. */
  system?: string | undefined;
  tools?: JsonValue[] | undefined;
}

export interface ContextResult extends Rendered {
  dialect: OutputDialect;
  reports: StageReport[];
  journal: JournalEntry[];
  events: PipelineEvent[];
  estimate: PipelineRun['estimate'];
  /** Ids of long-term memories extracted in this run. */
  memories: string[];
  /** Ids of the messages the agent now sees (neutral ids, for the caller's bookkeeping). */
  contextIds: string[];
  /**
   * Memory and recall entries the prompt-injection scan kept out of the session's memory block
   * (`kind`, `id`, the `issues` found); `[]` when none (or the run appended no block).
   */
  memoryDropped: DroppedEntry[];
  /**
   * What ctxkit added to the caller's system prompt from memory: the block's tokens, the memories in
   * it and the recalled messages; `null` when it added nothing.
   */
  memoryBlock: AddedMemory | null;
}

export async function requireSession(deps: SessionDeps, key: SessionKey): Promise<SessionInfo> {
  const cached = freshView(deps.cache, deps.clock.now());
  if (cached) return cached.info;
  const info = await deps.sessions.get(key.tenant, key.session);
  if (!info) throw new CtxError('not_found', `session ${key.session} not found`, { path: 'params.session' });
  return info;
}

export async function load(deps: SessionDeps, key: SessionKey): Promise<Loaded> {
  const now = deps.clock.now();
  const cached = freshView(deps.cache, now);
  if (cached) return { ...cached, messages: resolveWorkingContext(cached.rows, cached.state.working) };
  const info = await requireSession(deps, key);
  const [rows, state] = await Promise.all([
    deps.sessions.messages(key.tenant, key.session),
    deps.sessions.getState(key.tenant, key.session),
  ]);
  rememberView(deps.cache, { info, rows, state, readAt: now });
  return { info, rows, state, messages: resolveWorkingContext(rows, state.working) };
}

function compacted(run: PipelineRun): boolean {
  return run.events.some((e) => e.type === 'compaction-end' && e.error === undefined);
}

/** The state after a run: pipeline state, the working context, the memory block. */
export function stateAfterRun(loaded: Loaded, state: SessionState, run: PipelineRun): SessionState {
  // Stages return their input itself when they change nothing: then the working context stays as
  // it was (often `null`, the whole log) and only the pipeline state may need a write.
  const unchanged =
    run.messages.length === loaded.messages.length && run.messages.every((m, i) => m === loaded.messages[i]);
  const next: SessionState = {
    ...state,
    pipeline: run.state,
    working: unchanged ? state.working : toWorkingContext(loaded.rows, run.messages),
  };
  return compacted(run) ? clearMemoryBlock(next) : next;
}

/** Persists what a run changed: pipeline state, the working context, the memory block. */
async function persistRun(
  deps: SessionDeps,
  key: SessionKey,
  loaded: Loaded,
  state: SessionState,
  run: PipelineRun,
) {
  const next = stateAfterRun(loaded, state, run);
  if (!sameSessionState(next, loaded.state)) {
    await deps.sessions.setState(key.tenant, key.session, next);
    afterSetState(deps.cache, next, deps.clock.now());
  }
}

/** What `finish` does after the state is written: extracted memories and memory flushes. */
export async function saveRunMemory(
  deps: SessionDeps,
  key: SessionKey,
  loaded: Loaded,
  state: SessionState,
  run: PipelineRun,
): Promise<string[]> {
  const memories = await saveExtracted(deps, key, loaded.info.project, state.pipeline, run, loaded.messages);
  await writeFlushes(deps, key, loaded.info.project, run);
  return memories;
}

/** Where a route's run is recorded for the context view's timeline, and as what. */
export interface RunLog {
  calls: CallLog;
  kind: Exclude<CallKind, 'proxy'>;
}

/** A route's run in the session's call log: its reports, journal and messages before and after. */
async function recordRun(
  deps: SessionDeps,
  loaded: Loaded,
  input: ContextInput & { injected?: string | undefined },
  run: PipelineRun,
  log: RunLog,
  added: AddedMemory | null,
): Promise<void> {
  // The call page's texts no log row holds: the prompt's parts and the messages ctxkit made.
  const batch = new TextBatch(deps.pipeline.counter);
  const logged = new Set(loaded.rows.map((r) => r.message.id));
  const texts = await callTexts(
    { system: input.system, injected: input.injected, tools: input.tools, sent: run.send, logged },
    batch,
    deps.pipeline.counter,
  );
  await log.calls.put(
    {
      kind: log.kind,
      id: crypto.randomUUID(),
      at: deps.clock.now(),
      provider: input.dialect ?? 'neutral',
      model: '',
      stream: false,
      appended: 0,
      diverged: false,
      estimate: run.estimate,
      reports: run.reports,
      journal: run.journal,
      messages: boundedRefs(messageRefs(loaded.messages, loaded.rows), messageRefs(run.send, loaded.rows)),
      ...(added ? { added: { memory: added } } : {}),
      ...texts,
    },
    batch.texts,
  );
}

export async function finish(
  deps: SessionDeps,
  key: SessionKey,
  loaded: Loaded,
  state: SessionState,
  system: string,
  input: ContextInput,
  run: PipelineRun,
  log?: RunLog,
): Promise<ContextResult> {
  await persistRun(deps, key, loaded, state, run);
  const memories = await saveRunMemory(deps, key, loaded, state, run);
  const added = addedMemory(state.memoryBlock);
  if (log) await recordRun(deps, loaded, { ...input, injected: state.memoryBlock?.text }, run, log, added);
  return {
    ...renderMessages(run.send, system, input.dialect),
    dialect: input.dialect ?? 'neutral',
    reports: run.reports,
    // The originals are in this session's log: its route, not the caller's own history.
    journal: journalFor(run.journal, { kind: 'service', session: key.session }),
    events: run.events,
    estimate: run.estimate,
    memories,
    contextIds: run.messages.map((m) => m.id),
    memoryDropped: state.memoryBlock?.dropped ?? [],
    memoryBlock: added,
  };
}

/** The non-empty system parts (the caller's prompt, the memory block), joined by a blank line. */
export function joinSystem(...parts: Array<string | undefined>): string {
  return parts.filter((p): p is string => p !== undefined && p.trim() !== '').join('\n\n');
}

/** Pre-flight: the next context to send, with the budget report and the journal. */
export async function prepareContext(
  deps: SessionDeps,
  key: SessionKey,
  input: ContextInput,
  calls?: CallLog,
): Promise<ContextResult> {
  const loaded = await load(deps, key);
  const { state, block } = await withMemoryBlock(deps, key, loaded);
  const system = joinSystem(input.system, block.text);
  const run = await deps.pipeline.prepare({
    messages: loaded.messages,
    system,
    ...(input.tools ? { tools: input.tools } : {}),
    state: state.pipeline,
    ...(toDialect(input.dialect) ? { dialect: toDialect(input.dialect)! } : {}),
  });
  return finish(deps, key, loaded, state, system, input, run, calls && { calls, kind: 'prepare' });
}

/** Manual compaction with optional focus instructions. */
export async function compactContext(
  deps: SessionDeps,
  key: SessionKey,
  input: ContextInput & { instructions?: string | undefined },
  calls?: CallLog,
): Promise<ContextResult> {
  const loaded = await load(deps, key);
  const system = joinSystem(input.system, loaded.state.memoryBlock?.text);
  const run = await deps.pipeline.compact({
    messages: loaded.messages,
    system,
    ...(input.tools ? { tools: input.tools } : {}),
    state: loaded.state.pipeline,
    ...(input.instructions ? { instructions: input.instructions } : {}),
    ...(toDialect(input.dialect) ? { dialect: toDialect(input.dialect)! } : {}),
  });
  return finish(deps, key, loaded, loaded.state, system, input, run, calls && { calls, kind: 'compact' });
}

/** The provider said "context too long": recover, and say whether to retry. */
export async function recoverOverflow(
  deps: SessionDeps,
  key: SessionKey,
  input: ContextInput & { error: string },
  calls?: CallLog,
): Promise<ContextResult & { retry: boolean; cleared: boolean }> {
  const loaded = await load(deps, key);
  const system = joinSystem(input.system, loaded.state.memoryBlock?.text);
  const run = await deps.pipeline.recoverOverflow({
    messages: loaded.messages,
    system,
    error: new Error(input.error),
    ...(input.tools ? { tools: input.tools } : {}),
    state: loaded.state.pipeline,
    ...(toDialect(input.dialect) ? { dialect: toDialect(input.dialect)! } : {}),
  });
  const result = await finish(
    deps,
    key,
    loaded,
    loaded.state,
    system,
    input,
    run,
    calls && { calls, kind: 'overflow' },
  );
  return { ...result, retry: run.retry, cleared: run.cleared === true };
}
