/**
 * Appending to a session: ids given, duplicates refused, tool results admitted through the
 * pipeline's output truncation (a huge output is cut and spilled to the blob store before it
 * reaches D1, whose rows stop at 1 MiB), then one atomic append to the log.
 */
import { CtxError, type JournalEntry, type Message, type StageReport } from '../../core/index.ts';
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
}

/** Everything `appendMessages` does before the write: ids, duplicates, output truncation. */
export async function stageAppend(
  deps: SessionDeps,
  key: SessionKey,
  parsed: ParsedMessages,
  knownIds: KnownIds,
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
    const admitted = await deps.pipeline.admitToolResult(m);
    messages[i] = admitted.message;
    if (admitted.report.status !== 'skipped') reports.push(admitted.report);
    // Admitted alone, a result has no call beside it: the runner's pairing repair of that one-message
    // run is not a change to the session, so it is left out.
    journal.push(...admitted.journal.filter((e) => e.stage !== 'repair'));
  }
  return { afterSeq: info.lastSeq, messages, reports, journal };
}

/** After a staged append was written: the known ids and the object's view follow. */
export async function appended(deps: SessionDeps, staged: StagedAppend, knownIds: KnownIds): Promise<void> {
  const known = await knownIds();
  for (const m of staged.messages) known.add(m.id);
  afterAppend(deps.cache, staged.messages, staged.afterSeq + 1, deps.clock.now());
}

export async function appendMessages(
  deps: SessionDeps,
  key: SessionKey,
  parsed: ParsedMessages,
  knownIds: KnownIds,
): Promise<AppendResult> {
  const staged = await stageAppend(deps, key, parsed, knownIds);
  const { afterSeq, messages } = staged;
  const lastSeq = await deps.sessions.append(key.tenant, key.session, messages, {
    expectedSeq: afterSeq,
  });
  await appended(deps, staged, knownIds);
  return {
    lastSeq,
    appended: messages.map((m, i) => ({ seq: afterSeq + 1 + i, id: m.id })),
    reports: staged.reports,
    journal: staged.journal,
  };
}
