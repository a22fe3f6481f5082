/**
 * The journal: one entry per message that a run removed, replaced, cut, hid, folded into a summary,
 * spilled or inserted. The full log is never lost; the journal says where each piece went and how
 * to get it back. Helpers here turn repairs into entries and check that a journal is complete.
 */
import type { Repair } from '../../invariants/repair.ts';
import type { Message } from '../../messages/types.ts';
import type { JournalEntry } from '../types.ts';

/** Where the session store keeps every message it ever received. */
export const SESSION_LOG = 'session-log';

/**
 * How to get back a message a run left out (journal location `session-log`), as the pipeline alone can
 * say it: it never changes the messages it was given, and keeps none of them, so the caller's own history
 * holds the original; one it hid (`hidden`) is still in `run.messages`. A session layer that keeps a log
 * says where instead (`recoverText`): the service its route, a session store its `messages()`.
 */
export function callerRecover(messageId: string, hidden = false): string {
  return hidden
    ? `kept in run.messages as hidden (agentVisible: false): message ${messageId} is no longer sent`
    : `not kept by ctxkit: message ${messageId} is in the history you passed in (never changed); keep your own history to read it back`;
}

/** Who keeps the messages a run leaves out: the recovery texts a journal's reader can act on. */
export type HistoryKeeper =
  /** A bare pipeline or incremental context: the caller's own history (the default texts). */
  | { kind: 'caller' }
  /** A `SessionStore` that keeps every message (`SessionStore.messages`). */
  | { kind: 'session-store' }
  /** The edge service: the session's messages route. */
  | { kind: 'service'; session: string }
  /** A transcript file read as it is (`ctxcheck inspect`): the message's place in it. */
  | { kind: 'file'; file: string; position: (messageId: string) => number | undefined };

function keeperRecover(messageId: string, keeper: Exclude<HistoryKeeper, { kind: 'caller' }>): string {
  switch (keeper.kind) {
    case 'session-store':
      return `message ${messageId} is kept whole in the session log: SessionStore.messages(tenant, session)`;
    case 'service':
      return `message ${messageId} is kept whole in the session log: GET /v1/sessions/${encodeURIComponent(keeper.session)}/messages`;
    case 'file': {
      const at = keeper.position(messageId);
      return `message ${messageId} is ${at === undefined ? 'in' : `message ${at + 1} of`} ${keeper.file}, unchanged`;
    }
  }
}

/** The entry's recovery text for the history's `keeper` (entries that lost nothing keep theirs). */
export function recoverText(entry: JournalEntry, keeper: HistoryKeeper): string {
  if (keeper.kind === 'caller' || entry.location !== SESSION_LOG) return entry.recover;
  const where = keeperRecover(entry.messageId, keeper);
  return entry.recover
    .replace(callerRecover(entry.messageId), where)
    .replace(callerRecover(entry.messageId, true), where);
}

/** A journal with the recovery texts of `keeper` (the same entries when nothing changes). */
export function journalFor(journal: readonly JournalEntry[], keeper: HistoryKeeper): JournalEntry[] {
  return journal.map((e) => {
    const recover = recoverText(e, keeper);
    return recover === e.recover ? e : { ...e, recover };
  });
}

/** What each repair did, and whether the message (or part) it dropped is to be read back. */
const REPAIR_RECOVER: Record<Repair['kind'], { what: string; lost: boolean }> = {
  'synthesized-result': {
    what: 'nothing was lost: an error result was added for a call that had none',
    lost: false,
  },
  'dropped-orphan-result': { what: 'its call was no longer in the context', lost: true },
  'dropped-duplicate-result': { what: 'its call already had a result', lost: true },
  'dropped-orphan-approval': {
    what: 'the call its approval was about was no longer in the context',
    lost: true,
  },
  'moved-result': { what: 'nothing was lost: the result was moved next to its call', lost: false },
  'renamed-call-id': {
    what: 'nothing was lost: a call id the provider would reject was renamed',
    lost: false,
  },
  'dropped-empty-message': { what: 'it had no content left', lost: true },
  'dropped-reasoning-only-message': {
    what: 'it held only reasoning, which the provider rejects alone',
    lost: true,
  },
  'dropped-unfollowed-reasoning': { what: 'its reasoning item had no item after it to go with', lost: true },
  'inserted-user-turn': {
    what: 'nothing was lost: a short user turn was put before a function call turn that opened the request',
    lost: false,
  },
  'detached-call-from-reasoning': {
    what: 'the call was sent without the item id that required it (the reasoning is the part to read back)',
    lost: true,
  },
};

/** Journal entries for the invariant repairs applied to what is sent. */
export function repairsToJournal(repairs: readonly Repair[], stage = 'repair'): JournalEntry[] {
  return repairs.map((r) => {
    const { what, lost } = REPAIR_RECOVER[r.kind];
    return {
      stage,
      action: 'repaired',
      messageId: r.messageId,
      tokensBefore: 0,
      tokensAfter: 0,
      location: SESSION_LOG,
      recover: `${r.kind}${r.callId ? ` (${r.callId})` : ''}: ${r.detail}; ${what}${lost ? `; ${callerRecover(r.messageId)}` : ''}`,
    };
  });
}

/** Visible to the agent: not flagged `agentVisible: false`. */
function visible(m: Message): boolean {
  return m.meta?.agentVisible !== false;
}

/**
 * Ids of messages that were visible in `input` but are missing from `output` (or hidden there) with no
 * journal entry naming them. An empty list means the journal accounts for every removal.
 */
export function unaccountedRemovals(
  input: readonly Message[],
  output: readonly Message[],
  journal: readonly JournalEntry[],
): string[] {
  const kept = new Set<string>();
  for (const m of output) if (visible(m)) kept.add(m.id);
  const named = new Set<string>();
  for (const e of journal) named.add(e.messageId);
  const out: string[] = [];
  for (const m of input) if (visible(m) && !kept.has(m.id) && !named.has(m.id)) out.push(m.id);
  return out;
}

/** Totals per action, for reports: `{ removed: 3, summarized: 12, … }`. */
export function summarizeJournal(
  journal: readonly JournalEntry[],
): Partial<Record<JournalEntry['action'], number>> {
  const out: Partial<Record<JournalEntry['action'], number>> = {};
  for (const e of journal) out[e.action] = (out[e.action] ?? 0) + 1;
  return out;
}
