/**
 * The journal: one entry per message that a run removed, replaced, cut, hid, folded into a summary,
 * spilled or inserted. The full log is never lost; the journal says where each piece went and how
 * to get it back. Helpers here turn repairs into entries and check that a journal is complete.
 */
import type { Repair } from '../invariants/repair.ts';
import type { Message } from '../messages/types.ts';
import type { JournalEntry } from './types.ts';

/** Where the session store keeps every message it ever received. */
export const SESSION_LOG = 'session-log';

const REPAIR_RECOVER: Record<Repair['kind'], string> = {
  'synthesized-result': 'nothing was lost: an error result was added for a call that had none',
  'dropped-orphan-result': 'read the message from the session log; its call was no longer in the context',
  'dropped-duplicate-result': 'read the message from the session log; its call already had a result',
  'dropped-orphan-approval':
    'read the message from the session log; the call its approval was about was no longer in the context',
  'moved-result': 'nothing was lost: the result was moved next to its call',
  'renamed-call-id': 'nothing was lost: a call id the provider would reject was renamed',
  'dropped-empty-message': 'read the message from the session log; it had no content left',
  'dropped-reasoning-only-message':
    'read the message from the session log; it held only reasoning, which the provider rejects alone',
  'dropped-unfollowed-reasoning':
    'read the message from the session log; its reasoning item had no item after it to go with',
  'inserted-user-turn':
    'nothing was lost: a short user turn was put before a function call turn that opened the request',
  'detached-call-from-reasoning':
    'read the reasoning from the session log; the call was sent without the item id that required it',
};

/** Journal entries for the invariant repairs applied to what is sent. */
export function repairsToJournal(repairs: readonly Repair[], stage = 'repair'): JournalEntry[] {
  return repairs.map((r) => ({
    stage,
    action: 'repaired',
    messageId: r.messageId,
    tokensBefore: 0,
    tokensAfter: 0,
    location: SESSION_LOG,
    recover: `${r.kind}${r.callId ? ` (${r.callId})` : ''}: ${r.detail}; ${REPAIR_RECOVER[r.kind]}`,
  }));
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
