/**
 * The "get it back" links of a call's page: where a removal can be read back — the spilled blob, the
 * memory, the daily file, the session log's row — as a link the page script fetches with the key
 * (`data-recover`), or, when the location names nothing the API serves, the journal's own words for the
 * service (`recoverText`).
 */
import { recoverText } from '../core/pipeline/engine/journal.ts';
import type { JournalEntry } from '../core/pipeline/types.ts';
import type { CallSource, FileSource } from './call-model.ts';
import { esc } from './html.ts';

/** The session-log route, starting at the row (`after` its seq − 1), with the message id to pick. */
export function logHref(sessionId: string, messageId: string, seq?: number): string {
  const after = seq !== undefined && seq >= 1 ? `?after=${seq - 1}` : '';
  return `/v1/sessions/${encodeURIComponent(sessionId)}/messages${after}#${encodeURIComponent(messageId)}`;
}

/**
 * Where a removal can be read back, as a link the page script fetches with the key
 * (`data-recover`); `undefined` when the location names nothing the API serves.
 */
export function recoverHref(sessionId: string, entry: JournalEntry, seq?: number): string | undefined {
  const [kind, ...rest] = entry.location.split(':');
  const id = rest.join(':');
  if (kind === 'blob' && id) return `/v1/blobs/${encodeURIComponent(id)}`;
  if (kind === 'memory' && id) return `/v1/memories/${encodeURIComponent(id)}`;
  if (kind === 'daily' && id) return `/v1/memory-documents?prefix=${encodeURIComponent(`memory/${id}`)}`;
  if (kind === 'session-log') return logHref(sessionId, entry.messageId, seq);
  return undefined;
}

/** A link on the page to the original's row in the transcript's view, or where the file holds it. */
function fileLink(file: FileSource, messageId: string, why: string): string {
  const anchor = file.anchor(messageId);
  const at = file.position(messageId);
  const where = at === undefined ? `in ${file.name}` : `message ${at + 1} of the file`;
  return anchor
    ? `<a href="#${esc(anchor)}" aria-label="${esc(`${why} ${messageId}: message ${(at ?? 0) + 1} of ${file.name}, unchanged`)}">${esc(where)}</a>`
    : `<span>${esc(where)}</span>`;
}

/** A journal entry's "get it back": its link, or what the journal says for the service. */
export function recoverLink(
  source: CallSource,
  j: JournalEntry,
  row?: { seq: number; arrival?: boolean },
): string {
  // Cut on arrival with no blob store: the log keeps only the cut text, so the log link gives nothing back.
  if (row?.arrival && j.stage === 'output-truncation' && j.location === 'session-log')
    return '<span>not kept: cut on arrival, with no blob store to spill it to</span>';
  const what = `${j.action} ${j.messageId}`;
  if (source.file) {
    if (j.location === 'session-log') return fileLink(source.file, j.messageId, `Get back ${what} from`);
    return `<span>${esc(recoverText(j, { kind: 'file', file: source.file.name, position: source.file.position }))}</span>`;
  }
  const href = recoverHref(source.sessionId, j, row?.seq);
  return href
    ? `<a href="${esc(href)}" data-recover="${esc(j.messageId)}" aria-label="${esc(`Get back ${what} from ${j.location}`)}">get it back (${esc(j.location.split(':')[0]!)})</a>`
    : `<span>${esc(recoverText(j, { kind: 'service', session: source.sessionId }))}</span>`;
}

/** A link to a log row's original (one left out, or sent rewritten). */
export function logLink(source: CallSource, row: { seq: number; id: string }, why: string): string {
  if (source.file) return fileLink(source.file, row.id, `Get back ${why}`);
  return `<a href="${esc(logHref(source.sessionId, row.id, row.seq))}" data-recover="${esc(row.id)}" aria-label="${esc(`Get back ${why} ${row.id} from the session log`)}">get it back (session-log)</a>`;
}

/** A message ctxkit made is in no log row: what it stood for is what gets it back. */
export function madeNote(id: string, madeFrom: ReadonlyMap<string, readonly string[]>): string {
  const from = madeFrom.get(id);
  return from && from.length > 0
    ? `<span>made by ctxkit from ${esc(from.length > 6 ? `${from.slice(0, 6).join(', ')} and ${from.length - 6} more` : from.join(', '))}: their rows get them back</span>`
    : '<span>made by ctxkit: no original to get back</span>';
}

/** Which messages each message ctxkit made stands for (journal `replacementId` → `messageId`s). */
export function madeFromOf(journal: readonly JournalEntry[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const j of journal)
    if (j.replacementId && j.replacementId !== j.messageId)
      out.set(j.replacementId, [...(out.get(j.replacementId) ?? []), j.messageId]);
  return out;
}
