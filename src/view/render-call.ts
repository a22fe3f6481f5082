/**
 * One call as an HTML fragment — a proxy call, or a `prepare`/`compact`/`overflow` run of the session
 * API: what the client sent (the proxy) or the context the run started from (the routes) beside what
 * went out, message by message, from the lists the call recorded — kept, or the journal's action
 * (truncated, removed, replaced, archived, summarized, spilled, repaired, inserted), or left out by an
 * earlier call — each change with a link that gets the original back: the spilled blob, the session
 * log row or the memory.
 */
import type { JournalEntry } from '../core/pipeline/types.ts';
import { chunkedTable, esc, fmt } from './html.ts';
import { type CallAdditions, renderAdded } from './render-added.ts';
import { type TimelineCall, when } from './render-session.ts';

/** A journal entry as the pipeline writes it. */
export type CallJournalEntry = JournalEntry;

export interface CallLogRow {
  seq: number;
  id: string;
  role: string;
  characters: number;
  preview: string;
  compacted: boolean;
  /** The log holds it cut by output truncation on arrival (not as the client sent it). */
  arrival?: boolean;
}

/** One message of a call's list: a log row (as logged, or rewritten) or a message ctxkit made. */
export type CallMessage = { seq: number; changed: boolean } | { id: string };

export interface CallPageInput {
  sessionId: string;
  call: TimelineCall;
  journal: readonly CallJournalEntry[];
  /** The log rows the lists name (or, for a record without lists, the log as the call saw it). */
  rows: readonly CallLogRow[];
  /** Ids of every message of the session log (default: those of `rows`). */
  logIds?: ReadonlySet<string>;
  /** What the call started from and what went out; absent in records older than the lists. */
  messages?: {
    input: readonly CallMessage[];
    output: readonly CallMessage[];
    /** A list was cut at its bound. */
    cut?: boolean;
    /** `output` is what the retry after an overflow recovery sent. */
    retried?: boolean;
  };
  /** What ctxkit added to the system prompt (the memory block), with its tokens. */
  added?: CallAdditions;
}

/** The session-log route, starting at the row (`after` its seq − 1), with the message id to pick. */
function logHref(sessionId: string, messageId: string, seq?: number): string {
  const after = seq !== undefined && seq >= 1 ? `?after=${seq - 1}` : '';
  return `/v1/sessions/${encodeURIComponent(sessionId)}/messages${after}#${encodeURIComponent(messageId)}`;
}

/**
 * Where a removal can be read back, as a link the page script fetches with the key
 * (`data-recover`); `undefined` when the location names nothing the API serves.
 */
export function recoverHref(sessionId: string, entry: CallJournalEntry, seq?: number): string | undefined {
  const [kind, ...rest] = entry.location.split(':');
  const id = rest.join(':');
  if (kind === 'blob' && id) return `/v1/blobs/${encodeURIComponent(id)}`;
  if (kind === 'memory' && id) return `/v1/memories/${encodeURIComponent(id)}`;
  if (kind === 'daily' && id) return `/v1/memory-documents?prefix=${encodeURIComponent(`memory/${id}`)}`;
  if (kind === 'session-log') return logHref(sessionId, entry.messageId, seq);
  return undefined;
}

function recoverLink(sessionId: string, j: CallJournalEntry, row?: CallLogRow): string {
  // Cut on arrival with no blob store: the log keeps only the cut text, so the log link gives nothing back.
  if (row?.arrival && j.stage === 'output-truncation' && j.location === 'session-log')
    return '<span>not kept: cut on arrival, with no blob store to spill it to</span>';
  const href = recoverHref(sessionId, j, row?.seq);
  const what = `${j.action} ${j.messageId}`;
  return href
    ? `<a href="${esc(href)}" data-recover="${esc(j.messageId)}" aria-label="${esc(`Get back ${what} from ${j.location}`)}">get it back (${esc(j.location.split(':')[0]!)})</a>`
    : `<span>${esc(j.recover)}</span>`;
}

function logLink(sessionId: string, row: CallLogRow, why: string): string {
  return `<a href="${esc(logHref(sessionId, row.id, row.seq))}" data-recover="${esc(row.id)}" aria-label="${esc(`Get back ${why} ${row.id} from the session log`)}">get it back (session-log)</a>`;
}

/** Which messages each message ctxkit made stands for (journal `replacementId` → `messageId`s). */
type MadeFrom = ReadonlyMap<string, readonly string[]>;

/** A message ctxkit made is in no log row: what it stood for is what gets it back. */
function madeNote(id: string, madeFrom: MadeFrom): string {
  const from = madeFrom.get(id);
  return from && from.length > 0
    ? `<span>made by ctxkit from ${esc(from.join(', '))}: their rows get them back</span>`
    : '<span>made by ctxkit earlier; not in the session log</span>';
}

function changeCell(
  sessionId: string,
  entries: readonly CallJournalEntry[],
  row?: CallLogRow,
  madeFrom?: MadeFrom,
): string {
  if (entries.length === 0) return '<td>kept</td><td class="num"></td><td></td>';
  const actions = entries.map((j) => `<strong>${esc(j.action)}</strong> by ${esc(j.stage)}`).join('<br>');
  const tokens = entries.map((j) => `${fmt(j.tokensBefore)} → ${fmt(j.tokensAfter)}`).join('<br>');
  // An inserted message (a summary, a digest) removed nothing: there is nothing to get back. A message
  // ctxkit made (no log row) is read back through the messages it stood for, not the log.
  const links = entries
    .map((j) =>
      j.action === 'inserted'
        ? 'nothing removed'
        : !row && madeFrom && j.location === 'session-log'
          ? madeNote(j.messageId, madeFrom)
          : recoverLink(sessionId, j, row),
    )
    .join('<br>');
  return `<td>${actions}</td><td class="num">${tokens}</td><td>${links}</td>`;
}

const KIND_TITLE: Record<string, string> = {
  proxy: 'Proxy call',
  prepare: 'Prepare',
  compact: 'Compaction',
  overflow: 'Overflow recovery',
};

const keyOf = (m: CallMessage) => ('seq' in m ? `s:${m.seq}` : `i:${m.id}`);

/** The message-by-message table from the recorded lists. */
function listedRows(
  p: CallPageInput,
  byMessage: Map<string, CallJournalEntry[]>,
  shown: Set<string>,
  madeFrom: MadeFrom,
): string[] {
  const lists = p.messages!;
  const bySeq = new Map(p.rows.map((r) => [r.seq, r]));
  const sent = new Map<string, CallMessage>();
  for (const m of lists.output) sent.set(keyOf(m), m);
  const inInput = new Set(lists.input.map(keyOf));
  // Messages only in the output (made by this call) are drawn before the next one both lists hold.
  const before = new Map<string, string[]>();
  let pending: string[] = [];
  for (const m of lists.output) {
    if (inInput.has(keyOf(m))) {
      if (pending.length > 0) before.set(keyOf(m), pending);
      pending = [];
    } else if ('id' in m) pending.push(m.id);
  }
  const made = (id: string) => {
    shown.add(id);
    const entries = byMessage.get(id) ?? [];
    return `<tr class="changed" data-made="${esc(id)}"><td class="num">—</td><td class="id wide">${esc(id)}</td><td>added by ctxkit</td><td class="num"></td><td class="preview"></td>${entries.length > 0 ? changeCell(p.sessionId, entries, undefined, madeFrom) : '<td><strong>inserted</strong></td><td class="num"></td><td>nothing removed</td>'}</tr>`;
  };
  const route = p.call.kind !== 'proxy';
  const out: string[] = [];
  for (const m of lists.input) {
    const k = keyOf(m);
    for (const id of before.get(k) ?? []) out.push(made(id));
    const went = sent.get(k);
    if ('id' in m) {
      // A message an earlier run made (a summary) that the context started from.
      shown.add(m.id);
      const entries = byMessage.get(m.id) ?? [];
      const cell =
        entries.length > 0
          ? changeCell(p.sessionId, entries, undefined, madeFrom)
          : went
            ? '<td>kept</td><td class="num"></td><td></td>'
            : '<td>not sent</td><td class="num"></td><td></td>';
      out.push(
        `<tr${entries.length > 0 || !went ? ' class="changed"' : ''}><td class="num">—</td><td class="id wide">${esc(m.id)}</td><td>made by ctxkit earlier</td><td class="num"></td><td class="preview"></td>${cell}</tr>`,
      );
      continue;
    }
    const row = bySeq.get(m.seq);
    if (!row) {
      out.push(
        `<tr data-seq="${m.seq}"><td class="num">${m.seq}</td><td class="id wide"></td><td colspan="6">no longer in the session log (cleared)</td></tr>`,
      );
      continue;
    }
    shown.add(row.id);
    const entries = byMessage.get(row.id) ?? [];
    let cell: string;
    if (entries.length > 0) cell = changeCell(p.sessionId, entries, row);
    else if (went && !('seq' in went && went.changed)) cell = changeCell(p.sessionId, [], row);
    else if (went)
      cell = `<td><strong>sent as an earlier call rewrote it</strong></td><td class="num"></td><td>${logLink(p.sessionId, row, 'the original of')}</td>`;
    else if (m.changed || route)
      cell = `<td><strong>not sent</strong></td><td class="num"></td><td>${logLink(p.sessionId, row, 'left out')}</td>`;
    else
      cell = `<td><strong>not sent</strong>: left out by an earlier call (not in the context this call started from)</td><td class="num"></td><td>${logLink(p.sessionId, row, 'left out')}</td>`;
    const changed = entries.length > 0 || !went || ('seq' in went && went.changed);
    const sentAs = m.changed ? ' · <span class="summary">rewritten by an earlier call</span>' : '';
    out.push(
      `<tr data-seq="${row.seq}"${changed ? ' class="changed"' : ''}><td class="num">${row.seq}</td><td class="id wide">${esc(row.id)}</td><td>${esc(row.role)}${sentAs}${row.arrival ? ' · <span class="summary">the log holds it cut on arrival</span>' : ''}</td><td class="num">${fmt(row.characters)}</td><td class="preview">${esc(row.preview)}</td>${cell}</tr>`,
    );
  }
  for (const id of pending) out.push(made(id));
  return out;
}

/** A record without lists: the log as the call saw it (rows written before the next call began). */
function reconstructedRows(
  p: CallPageInput,
  byMessage: Map<string, CallJournalEntry[]>,
  shown: Set<string>,
): string[] {
  return p.rows.map((r) => {
    shown.add(r.id);
    const entries = byMessage.get(r.id) ?? [];
    return `<tr data-seq="${r.seq}"${entries.length > 0 ? ' class="changed"' : ''}><td class="num">${r.seq}</td><td class="id wide">${esc(r.id)}</td><td>${esc(r.role)}${r.compacted ? ' · <span class="summary">compacted in the log</span>' : ''}</td><td class="num">${fmt(r.characters)}</td><td class="preview">${esc(r.preview)}</td>${changeCell(p.sessionId, entries, r)}</tr>`;
  });
}

export function renderCallPage(p: CallPageInput): string {
  const c = p.call;
  const byMessage = new Map<string, CallJournalEntry[]>();
  for (const j of p.journal) byMessage.set(j.messageId, [...(byMessage.get(j.messageId) ?? []), j]);
  const shown = new Set<string>();
  const madeFrom = new Map<string, string[]>();
  for (const j of p.journal)
    if (j.replacementId && j.replacementId !== j.messageId)
      madeFrom.set(j.replacementId, [...(madeFrom.get(j.replacementId) ?? []), j.messageId]);
  const logIds = p.logIds ?? new Set(p.rows.map((r) => r.id));
  const rows = p.messages
    ? listedRows(p, byMessage, shown, madeFrom)
    : reconstructedRows(p, byMessage, shown);
  // Journal entries for messages outside the lists (or the rows shown).
  const extra = p.journal
    .filter((j) => !shown.has(j.messageId))
    .map(
      (j): string =>
        `<tr class="changed"><td class="num">—</td><td class="id wide">${esc(j.messageId)}</td><td>${j.action === 'inserted' || !logIds.has(j.messageId) ? 'added by ctxkit' : 'not in the rows shown'}</td><td class="num"></td><td class="preview"></td>${changeCell(p.sessionId, [j], undefined, logIds.has(j.messageId) ? undefined : madeFrom)}</tr>`,
    );
  const reports = c.reports
    .map(
      (s) =>
        `<tr><th scope="row">${esc(s.stage)}</th><td>${esc(s.status)}</td><td class="num">${fmt(s.tokensBefore)}</td><td class="num">${fmt(s.tokensAfter)}</td><td>${esc(s.error ? `error: ${s.error}` : (s.detail ?? ''))}</td></tr>`,
    )
    .join('');
  const usage = c.upstream?.usage;
  const proxy = c.kind === 'proxy';
  const title = KIND_TITLE[c.kind] ?? 'Call';
  const from = proxy ? 'client sent' : 'context before';
  const to = proxy ? (p.messages?.retried ? 'upstream (the retry)' : 'upstream') : 'returned';
  const lists = p.messages
    ? `${fmt(p.messages.input.length)} ${proxy ? 'sent by the client' : 'before'}, ${fmt(p.messages.output.length)} ${proxy ? 'sent upstream' : 'after'}${p.messages.cut ? ' (lists cut at their bound)' : ''}`
    : `${fmt(p.rows.length)} log rows, reconstructed from the log: the call was recorded before calls kept their message lists`;
  const what = proxy
    ? `${esc(c.provider)} ${esc(c.model)}${c.stream ? ' (stream)' : ''} · ${fmt(c.appended)} new messages${c.diverged ? ' · the client’s history diverged from the log' : ''}`
    : `the session API’s <code>${esc(c.kind)}</code> (${esc(c.provider)} dialect)`;
  const upstream = proxy
    ? ` · upstream ${c.upstream ? `${c.upstream.status}${usage?.inputTokens !== undefined ? `, ${fmt(usage.inputTokens)} input tokens` : ''}` : 'not reached'}${c.overflow ? ' · recovered from a context overflow' : ''}`
    : '';
  return `<nav aria-label="Breadcrumb" class="tabs"><a href="#/sessions">Sessions</a> › <a href="#/sessions/${esc(encodeURIComponent(p.sessionId))}">${esc(p.sessionId)}</a> › <span aria-current="page">${esc(title.toLowerCase())} ${esc(c.id.slice(0, 8))}</span></nav>
<h2 id="call-h" tabindex="-1" class="view-title">${esc(title)} ${esc(c.id)}</h2>
<p class="summary">${esc(when(c.at))} UTC · ${what} · tokens <strong>${fmt(c.estimate.before)} → ${fmt(c.estimate.after)}</strong> (level <span class="level-${esc(c.estimate.level)}">${esc(c.estimate.level)}</span>${c.estimate.anchored ? ', anchored to reported usage' : ''})${upstream}</p>
${renderAdded(p.added)}
<section aria-labelledby="stages-h"><h2 id="stages-h">Stages</h2><div class="scroll"><table aria-label="Stage reports"><thead><tr><th scope="col">stage</th><th scope="col">status</th><th scope="col" class="num">tokens before</th><th scope="col" class="num">after</th><th scope="col">detail</th></tr></thead><tbody>${reports}</tbody></table></div></section>
<section aria-labelledby="sent-h"><h2 id="sent-h">${esc(from[0]!.toUpperCase() + from.slice(1))} → ${esc(to)} (${lists}; ${fmt(p.journal.length)} journal entries)</h2>
${chunkedTable('call-list', 'Messages of the call', `<thead><tr><th scope="col" class="num">seq</th><th scope="col" class="id wide">message</th><th scope="col">role</th><th scope="col" class="num">chars</th><th scope="col" class="preview">${esc(from)}</th><th scope="col">${esc(to)}</th><th scope="col" class="num">tokens</th><th scope="col">get it back</th></tr></thead>`, [...rows, ...extra])}</section>
<section aria-labelledby="recovered-h"><h2 id="recovered-h">Recovered content</h2><p class="summary">Follow a “get it back” link: the original is read with your key and shown here.</p><pre id="recovered" tabindex="-1" aria-live="polite"></pre></section>`;
}
