/**
 * Appending to a session: ids given, duplicates refused, tool results admitted through the
 * pipeline's output truncation (a huge output is cut and spilled to the blob store), the session's
 * size bound checked and the large messages put in the blob store (their rows hold a pointer), then
 * one atomic append to the log. A spill that fails keeps the output whole — it is never cut with
 * nowhere to read it back — and the stage's report says so.
 */
import { CtxError, type JournalEntry, type Message, type StageReport } from '../../core/index.ts';
import { canAppendWithState } from '../../db/sql/sql-session-store.ts';
import { assignIds, type ParsedMessages } from './formats.ts';
import { afterAppend } from './session-cache.ts';
import { requireSession, type SessionDeps } from './session-service.ts';
import type { SessionKey } from './wire.ts';

export interface AppendResult {
  lastSeq: number;
  appended: Array<{ seq: number; id: string }>;
  /** Output truncation of arriving tool results (spills included). */
  reports: StageReport[];
  journal: JournalEntry[];
}

/** Ids already in the session's log, loaded once per Durable Object lifetime. */
export type KnownIds = () => Promise<Set<string>>;

/** Messages ready to append: ids checked, tool results admitted; nothing written yet. */
export interface StagedAppend {
  /** The log's `lastSeq` they follow. */
  afterSeq: number;
  messages: Message[];
  reports: StageReport[];
  journal: JournalEntry[];
  /** The bytes they add to the log. */
  bytes: number;
}

export interface StageOptions {
  /** Check the session's size bound (not for the answer of a call already paid for). @default true */
  bounded?: boolean;
}

/** Admits one tool result; a failed spill keeps it whole. */
async function admitResult(deps: SessionDeps, m: Message) {
  const failedBefore = deps.spills?.failures() ?? 0;
  deps.spills?.forMessage(m.id);
  try {
    const admitted = await deps.pipeline.admitToolResult(m);
    if ((deps.spills?.failures() ?? 0) === failedBefore || admitted.message === m) return admitted;
    return {
      message: m,
      report: {
        ...admitted.report,
        status: 'failed' as const,
        tokensAfter: admitted.report.tokensBefore,
        detail: 'the spill to the blob store failed: the output is kept whole in the session log',
        error: 'spill failed',
      },
      journal: [],
    };
  } finally {
    deps.spills?.forMessage(undefined);
  }
}

/** Everything `appendMessages` does before the write: ids, duplicates, output truncation, size, large content. */
export async function stageAppend(
  deps: SessionDeps,
  key: SessionKey,
  parsed: ParsedMessages,
  knownIds: KnownIds,
  options: StageOptions = {},
): Promise<StagedAppend> {
  const info = await requireSession(deps, key);
  const messages: Message[] = assignIds(parsed, info.lastSeq + 1);
  const known = await knownIds();
  const batch = new Set<string>();
  messages.forEach((m, i) => {
    if (known.has(m.id) || batch.has(m.id))
      throw new CtxError('conflict', `message id ${m.id} is already in the session`, {
        path: `messages[${i}].id`,
      });
    batch.add(m.id);
  });
  const reports: StageReport[] = [];
  const journal: JournalEntry[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'tool') continue;
    const admitted = await admitResult(deps, m);
    messages[i] = admitted.message;
    if (admitted.report.status !== 'skipped') reports.push(admitted.report);
    // Admitted alone, a result has no call beside it: the runner's pairing repair of that one-message
    // run is not a change to the session, so it is left out.
    journal.push(...admitted.journal.filter((e) => e.stage !== 'repair'));
  }
  let bytes = 0;
  if (canAppendWithState(deps.sessions)) {
    bytes = await deps.sessions.rowBytes(messages);
    if (options.bounded !== false) await deps.size?.admit(deps.sessions, key, bytes);
    // Large messages go to the blob store now: before the rows are written, before the upstream is paid.
    await deps.sessions.prepareRows(key.tenant, key.session, messages);
  }
  return { afterSeq: info.lastSeq, messages, reports, journal, bytes };
}

/** After a staged append was written: the known ids and the object's view follow. */
export async function appended(deps: SessionDeps, staged: StagedAppend, knownIds: KnownIds): Promise<void> {
  const known = await knownIds();
  for (const m of staged.messages) known.add(m.id);
  deps.size?.added(staged.bytes);
  afterAppend(deps.cache, staged.messages, staged.afterSeq + 1, deps.clock.now());
}

/** Writes a staged append to the log (one atomic D1 batch); the answer a client gets. */
export async function commitAppend(
  deps: SessionDeps,
  key: SessionKey,
  staged: StagedAppend,
  knownIds: KnownIds,
): Promise<AppendResult> {
  await deps.sessions.append(key.tenant, key.session, staged.messages, { expectedSeq: staged.afterSeq });
  await appended(deps, staged, knownIds);
  return appendResult(staged);
}

/** What an append answers, known before it is written. */
export function appendResult(staged: StagedAppend): AppendResult {
  const { afterSeq, messages } = staged;
  return {
    lastSeq: afterSeq + messages.length,
    appended: messages.map((m, i) => ({ seq: afterSeq + 1 + i, id: m.id })),
    reports: staged.reports,
    journal: staged.journal,
  };
}

export async function appendMessages(
  deps: SessionDeps,
  key: SessionKey,
  parsed: ParsedMessages,
  knownIds: KnownIds,
  options: StageOptions = {},
): Promise<AppendResult> {
  return commitAppend(deps, key, await stageAppend(deps, key, parsed, knownIds, options), knownIds);
}
