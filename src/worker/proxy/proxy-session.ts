/**
 * The proxy's work inside a session's Durable Object (run in the object's queue, so two calls on
 * one session never interleave). A turn: find the longest prefix of the client's history that the
 * log already holds (by content digest), append only the rest, prepare, and keep a call record.
 * When the history left the log's path (a regenerated or edited turn), the working context is cut
 * back to the common prefix, or, when compaction already folded the cut rows into a summary, reset
 * so that the client's history is appended afresh. The answer is logged later, once, with its usage.
 */
import {
  type JsonValue,
  type Message,
  type RunEstimate,
  resolveWorkingContext,
  type SessionState,
  sameSessionState,
  type Usage,
  type WorkingContext,
} from '../../core/index.ts';
import { canAppendWithState } from '../../db/sql/sql-session-store.ts';
import { messageRowBytes, messagesBytes, withReservation } from '../limits/storage-quota.ts';
import {
  appended,
  appendMessages,
  type KnownIds,
  type StagedAppend,
  stageAppend,
} from '../session/append.ts';
import { afterSetState } from '../session/session-cache.ts';
import { withMemoryBlock } from '../session/session-memory.ts';
import {
  finish,
  joinSystem,
  type Loaded,
  load,
  type SessionDeps,
  saveRunMemory,
  stateAfterRun,
} from '../session/session-service.ts';
import type { SessionKey } from '../session/wire.ts';
import {
  addedMemory,
  boundedRefs,
  type CallLog,
  type CallRecord,
  MAX_REFS,
  messageRefs,
  seqRefs,
} from './call-log.ts';
import { callTexts, TextBatch } from './call-texts.ts';
import { storedDigest } from './digest.ts';
import type { Protocol, ProviderId } from './protocol.ts';
import { commonPrefix, cutWorking, isAbandoned, sendRefs } from './proxy-path.ts';
import { MAX_ROUND_RECORDS, type RoundUsage } from './round-usage.ts';
import { phaseTimer } from './timing.ts';

type ProxyDialect = Protocol['dialect'];

export interface ProxyCallInfo {
  id: string;
  at: number;
  provider: ProviderId;
  model: string;
  stream: boolean;
}

export interface ProxyTurnInput {
  /** Digest of every message of the client's history (system prompt excluded). */
  digests: string[];
  /** Index in the history of `tail[0]`. */
  tailStart: number;
  /** The history from `tailStart` on, neutral, each carrying its digest in `meta`. */
  tail: Message[];
  system: string;
  tools?: JsonValue[] | undefined;
  dialect: ProxyDialect;
  call: ProxyCallInfo;
  /** Measure the phases (`PROXY_TIMING=1`, for bench:proxy). */
  timing?: boolean | undefined;
}

export interface Prepared {
  /** Neutral messages to send, repaired for the dialect. */
  send: Message[];
  /** The session's memory block, to add to the system prompt ('' when none). */
  memory: string;
  estimate: RunEstimate;
}

/** A turn's context: what to send, where a number stands for the client's own message at that index. */
export interface ProxyTurnResult extends Omit<Prepared, 'send'> {
  /**
   * The messages to send, repaired for the dialect. A message the log holds exactly as the client sent
   * it, and that the pipeline left alone, comes back as its index in the client's history: the Worker
   * renders its own copy, so the context does not travel back whole.
   */
  send: Array<Message | number>;
  appended: number;
  diverged: boolean;
  /** The log's last seq once the history is in: the answer is logged after it. */
  afterSeq: number;
  /** Phases inside the object, when the input asked for them. */
  timing?: Array<[string, number]>;
}

/** The tail did not reach back far enough: send the history from `need` on. */
export type ProxyTurnOutcome = { need: number } | { turn: ProxyTurnResult };

/** What the turn's write reports once it succeeded (its duration, when timed). */
export interface ProxyCommit {
  timing?: Array<[string, number]>;
}

/**
 * A turn as the session object runs it: the outcome to return at once, and the write of the new rows
 * and state still under way (the object's queue waits for it; `proxyCommit` reports it).
 */
export interface ProxyTurnStarted {
  outcome: ProxyTurnOutcome;
  write?: Promise<ProxyCommit>;
}

/** The proxy's state in the session object: call records and the seq ranges a divergence took back. */
export interface ProxyStorage {
  calls: CallLog;
  abandoned(): Promise<Array<[number, number]>>;
  abandon(fromSeq: number, toSeq: number): Promise<void>;
}

async function setWorking(deps: SessionDeps, key: SessionKey, state: SessionState, working: WorkingContext) {
  const next = { ...state, working };
  await deps.sessions.setState(key.tenant, key.session, next);
  afterSetState(deps.cache, next, deps.clock.now());
}

/** `loaded` with the staged rows after its log (not written yet). */
function withStaged(loaded: Loaded, staged: StagedAppend | undefined, now: number): Loaded {
  if (!staged || staged.messages.length === 0) return loaded;
  const rows = [
    ...loaded.rows,
    ...staged.messages.map((message, i) => ({
      seq: staged.afterSeq + 1 + i,
      message,
      createdAt: now,
      compacted: false,
    })),
  ];
  const info = { ...loaded.info, lastSeq: staged.afterSeq + staged.messages.length, lastActive: now };
  return { info, rows, state: loaded.state, messages: resolveWorkingContext(rows, loaded.state.working) };
}

export async function proxyTurn(
  deps: SessionDeps,
  key: SessionKey,
  input: ProxyTurnInput,
  known: KnownIds,
  storage: ProxyStorage,
): Promise<ProxyTurnStarted> {
  const timer = phaseTimer(input.timing === true);
  const before = await load(deps, key);
  timer.mark('load');
  const abandoned = await storage.abandoned();
  timer.mark('abandoned');
  const path =
    abandoned.length === 0 ? before.rows : before.rows.filter((r) => !isAbandoned(abandoned, r.seq));
  let from = commonPrefix(path, input.digests);
  timer.mark('match');
  const diverged = from < path.length;
  if (diverged) {
    const lastSeq = before.info.lastSeq;
    const working = cutWorking(before.state.working, path, from, lastSeq);
    if (working === undefined) from = 0;
    if (from < input.tailStart) return { outcome: { need: from } };
    await setWorking(deps, key, before.state, working ?? { throughSeq: lastSeq, items: [] });
    await storage.abandon(path[from]!.seq, lastSeq);
  } else if (from < input.tailStart) return { outcome: { need: from } };
  const fresh = input.tail.slice(from - input.tailStart);
  // The bytes the turn is about to store (spills included), reserved before anything is written: a
  // tenant at its cap gets a 429 in the provider's shape, and nothing of the turn is stored.
  const staged =
    fresh.length > 0
      ? await withReservation(deps.quota, messagesBytes(fresh), () =>
          stageAppend(deps, key, { messages: fresh, autoId: fresh.map(() => true) }, known),
        )
      : undefined;
  timer.mark('stage');
  // The pipeline runs on the log as it is once the new rows are in; the rows and the state it leaves
  // are then written in one atomic D1 batch (one round trip), before the context goes out.
  const base = diverged ? await load(deps, key) : before;
  const loaded = withStaged(base, staged, deps.clock.now());
  const { state, block } = await withMemoryBlock(deps, key, loaded);
  timer.mark('memory');
  const system = joinSystem(input.system, block.text);
  const run = await deps.pipeline.prepare({
    messages: loaded.messages,
    system,
    ...(input.tools ? { tools: input.tools } : {}),
    state: state.pipeline,
    dialect: input.dialect,
    model: input.call.model,
  });
  timer.mark('prepare');
  const next = stateAfterRun(loaded, state, run);
  const changed = !sameSessionState(next, base.state);
  timer.mark('state');
  const afterSeq = staged ? staged.afterSeq + staged.messages.length : base.info.lastSeq;
  const record: CallRecord = {
    kind: 'proxy',
    ...input.call,
    appended: fresh.length,
    diverged,
    estimate: run.estimate,
    // Output truncation of the arriving tool results (a spill to the blob store) comes first.
    reports: [...(staged?.reports ?? []), ...run.reports],
    journal: [...(staged?.journal ?? []), ...run.journal],
  };
  const added = addedMemory(block);
  if (added) record.added = { memory: added };
  // The new rows and the state the pipeline left, in one atomic D1 batch, then the memories a
  // compaction extracted and the call record. Not awaited here: the caller sends the context upstream
  // meanwhile and releases the answer only once this has succeeded (`proxyCommit`).
  const write = async (): Promise<ProxyCommit> => {
    const w = phaseTimer(timer.on);
    if (staged && changed && canAppendWithState(deps.sessions)) {
      await deps.sessions.appendWithState(key.tenant, key.session, staged.messages, next, {
        expectedSeq: staged.afterSeq,
      });
      await appended(deps, staged, known);
    } else {
      if (staged) {
        await deps.sessions.append(key.tenant, key.session, staged.messages, {
          expectedSeq: staged.afterSeq,
        });
        await appended(deps, staged, known);
      }
      if (changed) await deps.sessions.setState(key.tenant, key.session, next);
    }
    if (changed) afterSetState(deps.cache, next, deps.clock.now());
    w.mark('write.d1');
    await saveRunMemory(deps, key, loaded, state, run);
    w.mark('write.memory');
    // What the client sent (the log rows its history matched, then the rows it appended) and what
    // went upstream, by log seq: the call view draws them side by side.
    const client = path.slice(0, from).map((r) => r.seq);
    for (let i = 0; i < (staged?.messages.length ?? 0); i++) client.push(staged!.afterSeq + 1 + i);
    record.messages = boundedRefs(seqRefs(client), messageRefs(run.send, loaded.rows));
    // The call page's texts no log row holds: the prompt's parts and the messages ctxkit made.
    const batch = new TextBatch(deps.pipeline.counter);
    const logged = new Set(loaded.rows.map((r) => r.message.id));
    const texts = { system: input.system, injected: block.text, tools: input.tools, sent: run.send, logged };
    Object.assign(record, await callTexts(texts, batch, deps.pipeline.counter));
    await storage.calls.put(record, batch.texts);
    w.mark('write.record');
    return w.on ? { timing: w.phases } : {};
  };
  const send = sendRefs(run.send, path, from, staged?.messages ?? []);
  timer.mark('refs');
  return {
    outcome: {
      turn: {
        send,
        memory: block.text ?? '',
        estimate: run.estimate,
        appended: fresh.length,
        diverged,
        afterSeq,
        ...(timer.on ? { timing: timer.phases } : {}),
      },
    },
    write: write(),
  };
}

export interface ProxyRecoverInput {
  callId: string;
  /** The provider's error text. */
  error: string;
  system: string;
  tools?: JsonValue[] | undefined;
  dialect: ProxyDialect;
  /** The model the call went to (its prompt-cache rules). */
  model?: string | undefined;
  /** The window the provider's error stated, in ctxkit's estimate (the session object may adopt it). */
  window?: number | undefined;
  /** Set by the session object: the session now works in `window`. */
  learned?: boolean | undefined;
}

/**
 * A context-length error: the preset's overflow recovery; `retry` says whether to send again. When the
 * session has just learned the provider's real window, the context is prepared again for it instead.
 */
export async function proxyRecover(
  deps: SessionDeps,
  key: SessionKey,
  input: ProxyRecoverInput,
  calls: CallLog,
): Promise<Prepared & { retry: boolean }> {
  const loaded = await load(deps, key);
  const memory = loaded.state.memoryBlock?.text ?? '';
  const system = joinSystem(input.system, memory);
  const common = {
    messages: loaded.messages,
    system,
    ...(input.tools ? { tools: input.tools } : {}),
    state: loaded.state.pipeline,
    dialect: input.dialect,
    ...(input.model ? { model: input.model } : {}),
  };
  const run = input.learned
    ? { ...(await deps.pipeline.prepare(common)), retry: true }
    : await deps.pipeline.recoverOverflow({ ...common, error: new Error(input.error) });
  await finish(deps, key, loaded, loaded.state, system, { dialect: 'neutral' }, run);
  await calls.update(input.callId, {
    overflow: {
      error: input.error.slice(0, 2000),
      retry: run.retry,
      ...(input.learned ? { window: input.window } : {}),
      estimate: run.estimate,
      journal: run.journal,
      output: messageRefs(run.send, loaded.rows).slice(0, MAX_REFS),
    },
  });
  return { send: run.send, memory, estimate: run.estimate, retry: run.retry };
}

export interface ProxyRecordInput {
  callId: string;
  status: number;
  /** The answer with its digest in `meta` (absent: the upstream failed or sent nothing to log). */
  answer?: Message | undefined;
  afterSeq: number;
  /** Rounds of recall-tool calls the proxy answered first (absent: none). */
  toolRounds?: number | undefined;
  /** Each tool round's checked usage (round-usage.ts; absent: none was made). */
  rounds?: RoundUsage[] | undefined;
  /** The call's usage, rounds and answer summed (absent: the answer's own). */
  usage?: Usage | undefined;
}

/** Logs the answer once: a later call that already brought it back in its history wins. */
export async function proxyRecord(
  deps: SessionDeps,
  key: SessionKey,
  input: ProxyRecordInput,
  known: KnownIds,
  calls: CallLog,
): Promise<{ logged: boolean }> {
  let logged = false;
  if (input.answer) {
    const digest = storedDigest(input.answer);
    const { rows } = await load(deps, key);
    const already = rows.some((r) => r.seq > input.afterSeq && storedDigest(r.message) === digest);
    if (!already) {
      // Paid for: logged even past the session's size bound (the next turn is refused instead).
      await appendMessages(deps, key, { messages: [input.answer], autoId: [true] }, known, {
        bounded: false,
      });
      // The answer of a call already admitted is stored whatever the quota says, and counted.
      await deps.quota?.charge(messageRowBytes(input.answer)).catch(() => undefined);
      logged = true;
    }
  }
  await calls.update(input.callId, {
    upstream: {
      status: input.status,
      ...(input.usage ? { usage: input.usage } : input.answer?.usage ? { usage: input.answer.usage } : {}),
      logged,
      ...(input.toolRounds ? { toolRounds: input.toolRounds } : {}),
      ...(input.rounds?.length ? { rounds: input.rounds.slice(0, MAX_ROUND_RECORDS) } : {}),
    },
  });
  return { logged };
}
