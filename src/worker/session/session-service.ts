/**
 * What a session's Durable Object does, as plain functions over the ports: the D1 stores, the
 * tenant's blob store, the summarizer, a clock and ids. The DO adds serialization and the
 * persisted compaction flag; everything here reads and writes D1 (the system of record).
 */
import {
  buildMemoryBlock,
  type Clock,
  CtxError,
  clearMemoryBlock,
  consolidateMemories,
  ensureMemoryBlock,
  type IdGenerator,
  type JournalEntry,
  type JsonValue,
  type MemoryRecord,
  type MemoryStore,
  type Message,
  messageText,
  type Pipeline,
  type PipelineEvent,
  type PipelineRun,
  resolveWorkingContext,
  type SessionInfo,
  type SessionState,
  type SessionStore,
  type StageReport,
  saveMemory,
  selectMemories,
  type TokenCounter,
  toWorkingContext,
} from '../../core/index.ts';
import { type OutputDialect, type Rendered, renderMessages, toDialect } from './formats.ts';
import { afterSetState, freshView, rememberView, type SessionCache } from './session-cache.ts';
import type { SessionKey } from './wire.ts';

const DAY = 86_400_000;

export interface SessionDeps {
  sessions: SessionStore;
  memories: MemoryStore;
  pipeline: Pipeline;
  clock: Clock;
  ids: IdGenerator;
  /** The Durable Object's cache of this session (absent: every call reads D1). */
  cache?: SessionCache;
}

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
}

export async function requireSession(deps: SessionDeps, key: SessionKey): Promise<SessionInfo> {
  const cached = freshView(deps.cache, deps.clock.now());
  if (cached) return cached.info;
  const info = await deps.sessions.get(key.tenant, key.session);
  if (!info) throw new CtxError('not_found', `session ${key.session} not found`, { path: 'params.session' });
  return info;
}

interface Loaded {
  info: SessionInfo;
  rows: Awaited<ReturnType<SessionStore['messages']>>;
  state: SessionState;
  messages: Message[];
}

async function load(deps: SessionDeps, key: SessionKey): Promise<Loaded> {
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

function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') {
      const text = messageText(m).trim();
      if (text !== '') return text.slice(0, 500);
    }
  }
  return '';
}

/** The frozen memory block: memories and recall from other sessions, computed once per context. */
async function withMemoryBlock(deps: SessionDeps, key: SessionKey, loaded: Loaded) {
  const now = deps.clock.now();
  return ensureMemoryBlock(loaded.state, async () => {
    const query = lastUserText(loaded.messages);
    const all = await deps.memories.list(key.tenant, { project: loaded.info.project, now });
    const selected = selectMemories(all, { query, now });
    const recall =
      query === ''
        ? []
        : await deps.sessions.recall(key.tenant, {
            project: loaded.info.project,
            excludeSession: key.session,
            query,
            limit: 3,
          });
    if (selected.length > 0)
      await deps.memories.markSurfaced(
        key.tenant,
        selected.map((m) => m.id),
        now,
      );
    return buildMemoryBlock(selected, recall, { counter: counterOf(deps), now });
  });
}

/** The block is capped with the counter the preset estimates with (the pipeline's, through `estimate`). */
function counterOf(deps: SessionDeps): TokenCounter {
  return {
    name: 'pipeline',
    countText: (text: string) => deps.pipeline.estimate({ messages: [], system: text }).tokens,
    countMessage: () => 0,
  };
}

function joinSystem(...parts: Array<string | undefined>): string {
  return parts.filter((p): p is string => p !== undefined && p.trim() !== '').join('\n\n');
}

/** Saves extracted memories in the session's project; compaction memories are consolidated after. */
async function saveExtracted(
  deps: SessionDeps,
  key: SessionKey,
  project: string,
  run: PipelineRun,
): Promise<string[]> {
  if (run.memories.length === 0) return [];
  const now = deps.clock.now();
  const ids: string[] = [];
  for (const m of run.memories) {
    const record: MemoryRecord = {
      tenant: key.tenant,
      id: deps.ids.next('mem'),
      project,
      userId: '',
      type: m.type,
      class: m.class ?? 'durable',
      title: m.title,
      content: m.content,
      pinned: false,
      expiresAt: m.expiresDays === undefined ? null : now + m.expiresDays * DAY,
      createdAt: now,
      updatedAt: now,
      lastSurfacedAt: null,
    };
    await saveMemory(deps.memories, record);
    ids.push(record.id);
  }
  await consolidateMemories(deps.memories, key.tenant, { now, project });
  return ids;
}

function compacted(run: PipelineRun): boolean {
  return run.events.some((e) => e.type === 'compaction-end' && e.error === undefined);
}

/** Persists what a run changed: pipeline state, the working context, the memory block. */
async function persistRun(
  deps: SessionDeps,
  key: SessionKey,
  loaded: Loaded,
  state: SessionState,
  run: PipelineRun,
) {
  // Stages return their input itself when they change nothing: then the working context stays as
  // it was (often `null`, the whole log) and only the pipeline state may need a write.
  const unchanged =
    run.messages.length === loaded.messages.length && run.messages.every((m, i) => m === loaded.messages[i]);
  let next: SessionState = {
    ...state,
    pipeline: run.state,
    working: unchanged ? state.working : toWorkingContext(loaded.rows, run.messages),
  };
  if (compacted(run)) next = clearMemoryBlock(next);
  if (JSON.stringify(next) !== JSON.stringify(loaded.state)) {
    await deps.sessions.setState(key.tenant, key.session, next);
    afterSetState(deps.cache, next, deps.clock.now());
  }
}

async function finish(
  deps: SessionDeps,
  key: SessionKey,
  loaded: Loaded,
  state: SessionState,
  system: string,
  input: ContextInput,
  run: PipelineRun,
): Promise<ContextResult> {
  await persistRun(deps, key, loaded, state, run);
  const memories = await saveExtracted(deps, key, loaded.info.project, run);
  return {
    ...renderMessages(run.send, system, input.dialect),
    dialect: input.dialect ?? 'neutral',
    reports: run.reports,
    journal: run.journal,
    events: run.events,
    estimate: run.estimate,
    memories,
    contextIds: run.messages.map((m) => m.id),
  };
}

/** Pre-flight: the next context to send, with the budget report and the journal. */
export async function prepareContext(
  deps: SessionDeps,
  key: SessionKey,
  input: ContextInput,
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
  return finish(deps, key, loaded, state, system, input, run);
}

/** Manual compaction with optional focus instructions. */
export async function compactContext(
  deps: SessionDeps,
  key: SessionKey,
  input: ContextInput & { instructions?: string | undefined },
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
  return finish(deps, key, loaded, loaded.state, system, input, run);
}

/** The provider said "context too long": recover, and say whether to retry. */
export async function recoverOverflow(
  deps: SessionDeps,
  key: SessionKey,
  input: ContextInput & { error: string },
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
  const result = await finish(deps, key, loaded, loaded.state, system, input, run);
  return { ...result, retry: run.retry, cleared: run.cleared === true };
}

export interface SessionStats {
  session: SessionInfo;
  /** 000 `/context`: what the agent sees now. */
  context: {
    messages: number;
    roles: Record<string, number>;
    characters: number;
    tokens: number;
    level: string;
    percentLeft: number;
    usable: number;
  };
  /** The full log, compacted rows included. */
  log: { messages: number; compacted: number; roles: Record<string, number>; characters: number };
  pendingInjections: number;
  compactionFailures: number;
}

function census(messages: readonly Message[]) {
  const roles: Record<string, number> = { system: 0, user: 0, assistant: 0, tool: 0 };
  let characters = 0;
  for (const m of messages) {
    roles[m.role] = (roles[m.role] ?? 0) + 1;
    characters += messageText(m).length;
  }
  return { messages: messages.length, roles, characters };
}

export async function sessionStats(deps: SessionDeps, key: SessionKey): Promise<SessionStats> {
  const loaded = await load(deps, key);
  const system = loaded.state.memoryBlock?.text;
  const estimate = deps.pipeline.estimate({ messages: loaded.messages, ...(system ? { system } : {}) });
  return {
    session: loaded.info,
    context: {
      ...census(loaded.messages),
      tokens: estimate.tokens,
      level: estimate.level,
      percentLeft: estimate.percentLeft,
      usable: estimate.usable,
    },
    log: {
      ...census(loaded.rows.map((r) => r.message)),
      compacted: loaded.rows.filter((r) => r.compacted).length,
    },
    pendingInjections: loaded.state.pipeline.pendingInjections.length,
    compactionFailures: loaded.state.pipeline.compactionFailures,
  };
}
