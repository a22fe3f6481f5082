/**
 * One proxy call as an HTML fragment: what the client sent (the session log as the call saw it, plus
 * what it appended) beside what went upstream, message by message — kept, or the journal's action
 * (truncated, removed, replaced, archived, summarized, spilled, repaired, inserted) — each change
 * with a link that gets the original back: the spilled blob, the session log row or the memory.
 */
import type { JournalEntry } from '../core/pipeline/types.ts';
import { esc, fmt } from './html.ts';
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
}

export interface CallPageInput {
  sessionId: string;
  call: TimelineCall;
  journal: readonly CallJournalEntry[];
  rows: readonly CallLogRow[];
}

/**
 * Where a removal can be read back, as a link the page script fetches with the key
 * (`data-recover`); `undefined` when the location names nothing the API serves.
 */
export function recoverHref(sessionId: string, entry: CallJournalEntry): string | undefined {
  const [kind, ...rest] = entry.location.split(':');
  const id = rest.join(':');
  if (kind === 'blob' && id) return `/v1/blobs/${encodeURIComponent(id)}`;
  if (kind === 'memory' && id) return `/v1/memories/${encodeURIComponent(id)}`;
  if (kind === 'daily' && id) return `/v1/memory-documents?prefix=${encodeURIComponent(`memory/${id}`)}`;
  if (kind === 'session-log')
    return `/v1/sessions/${encodeURIComponent(sessionId)}/messages#${encodeURIComponent(entry.messageId)}`;
  return undefined;
}

function recoverLink(sessionId: string, j: CallJournalEntry): string {
  const href = recoverHref(sessionId, j);
  const what = `${j.action} ${j.messageId}`;
  return href
    ? `<a href="${esc(href)}" data-recover="${esc(j.messageId)}" aria-label="${esc(`Get back ${what} from ${j.location}`)}">get it back (${esc(j.location.split(':')[0]!)})</a>`
    : `<span>${esc(j.recover)}</span>`;
}

function changeCell(sessionId: string, entries: readonly CallJournalEntry[]): string {
  if (entries.length === 0) return '<td>kept</td><td class="num"></td><td></td>';
  const actions = entries.map((j) => `<strong>${esc(j.action)}</strong> by ${esc(j.stage)}`).join('<br>');
  const tokens = entries.map((j) => `${fmt(j.tokensBefore)} → ${fmt(j.tokensAfter)}`).join('<br>');
  // An inserted message (a summary, a digest) removed nothing: there is nothing to get back.
  const links = entries
    .map((j) => (j.action === 'inserted' ? 'nothing removed' : recoverLink(sessionId, j)))
    .join('<br>');
  return `<td>${actions}</td><td class="num">${tokens}</td><td>${links}</td>`;
}

export function renderCallPage(p: CallPageInput): string {
  const c = p.call;
  const byMessage = new Map<string, CallJournalEntry[]>();
  for (const j of p.journal) byMessage.set(j.messageId, [...(byMessage.get(j.messageId) ?? []), j]);
  const logIds = new Set(p.rows.map((r) => r.id));
  const rows = p.rows
    .map((r) => {
      const entries = byMessage.get(r.id) ?? [];
      return `<tr data-seq="${r.seq}"${entries.length > 0 ? ' class="changed"' : ''}><td class="num">${r.seq}</td><td class="id">${esc(r.id)}</td><td>${esc(r.role)}${r.compacted ? ' · <span class="summary">compacted in the log</span>' : ''}</td><td class="num">${fmt(r.characters)}</td><td class="preview">${esc(r.preview)}</td>${changeCell(p.sessionId, entries)}</tr>`;
    })
    .join('');
  // Messages ctxkit added (summaries, digests) and journal entries for ids outside the log rows shown.
  const extra = p.journal
    .filter((j) => !logIds.has(j.messageId))
    .map(
      (j) =>
        `<tr class="changed"><td class="num">—</td><td class="id">${esc(j.messageId)}</td><td>${j.action === 'inserted' ? 'added by ctxkit' : 'not in the log rows shown'}</td><td class="num"></td><td class="preview"></td>${changeCell(p.sessionId, [j])}</tr>`,
    )
    .join('');
  const reports = c.reports
    .map(
      (s) =>
        `<tr><th scope="row">${esc(s.stage)}</th><td>${esc(s.status)}</td><td class="num">${fmt(s.tokensBefore)}</td><td class="num">${fmt(s.tokensAfter)}</td><td>${esc(s.error ? `error: ${s.error}` : (s.detail ?? ''))}</td></tr>`,
    )
    .join('');
  const usage = c.upstream?.usage;
  return `<nav aria-label="Breadcrumb" class="tabs"><a href="#/sessions">Sessions</a> › <a href="#/sessions/${esc(encodeURIComponent(p.sessionId))}">${esc(p.sessionId)}</a> › <span aria-current="page">call ${esc(c.id.slice(0, 8))}</span></nav>
<h2 id="call-h" tabindex="-1" class="view-title">Call ${esc(c.id)}</h2>
<p class="summary">${esc(when(c.at))} UTC · ${esc(c.provider)} ${esc(c.model)}${c.stream ? ' (stream)' : ''} · ${fmt(c.appended)} new messages${c.diverged ? ' · the client’s history diverged from the log' : ''} · tokens <strong>${fmt(c.estimate.before)} → ${fmt(c.estimate.after)}</strong> (level <span class="level-${esc(c.estimate.level)}">${esc(c.estimate.level)}</span>${c.estimate.anchored ? ', anchored to reported usage' : ''}) · upstream ${c.upstream ? `${c.upstream.status}${usage?.inputTokens !== undefined ? `, ${fmt(usage.inputTokens)} input tokens` : ''}` : 'not reached'}${c.overflow ? ' · recovered from a context overflow' : ''}</p>
<section aria-labelledby="stages-h"><h2 id="stages-h">Stages</h2><div class="scroll"><table aria-label="Stage reports"><thead><tr><th scope="col">stage</th><th scope="col">status</th><th scope="col" class="num">tokens before</th><th scope="col" class="num">after</th><th scope="col">detail</th></tr></thead><tbody>${reports}</tbody></table></div></section>
<section aria-labelledby="sent-h"><h2 id="sent-h">Client sent → upstream (${fmt(p.rows.length)} log rows, ${fmt(p.journal.length)} journal entries)</h2>
<div class="scroll long"><table aria-label="Messages of the call"><thead><tr><th scope="col" class="num">seq</th><th scope="col" class="id">message</th><th scope="col">role</th><th scope="col" class="num">characters</th><th scope="col" class="preview">client sent</th><th scope="col">upstream</th><th scope="col" class="num">tokens</th><th scope="col">get it back</th></tr></thead><tbody>${rows}${extra}</tbody></table></div></section>
<section aria-labelledby="recovered-h"><h2 id="recovered-h">Recovered content</h2><p class="summary">Follow a “get it back” link: the original is read with your key and shown here.</p><pre id="recovered" tabindex="-1" aria-live="polite"></pre></section>`;
}
