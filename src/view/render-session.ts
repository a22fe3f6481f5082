/**
 * The service's session pages as HTML fragments: the list of a tenant's sessions (size, level, last
 * activity) and one session — its context view and the timeline of its calls (prepares, compactions,
 * overflow recoveries and proxy calls) with tokens before and after and each stage's report. Links are `#/…` routes of the page script, never URLs with a key.
 */

import type { Usage } from '../core/messages/types.ts';
import type { RunEstimate } from '../core/pipeline/engine/runner.ts';
import type { StageReport } from '../core/pipeline/types.ts';
import { cacheLine, roundsNote } from './cache-line.ts';
import type { ContextView } from './context-model.ts';
import { esc, fmt } from './html.ts';
import { levelReason } from './level-reason.ts';
import { renderContextView } from './render-context.ts';

export interface SessionListRow {
  id: string;
  title: string | null;
  project: string;
  messages: number;
  lastActive: number;
  /** From the session's `stats` (absent when it could not be read). */
  tokens?: number;
  usable?: number;
  level?: string;
}

/**
 * A call of the session's timeline (`GET /v1/sessions/:id/view` → `calls`): a proxy call, or a run of
 * the session API's `prepare`, `compact` or `overflow` route.
 */
export interface TimelineCall {
  kind: 'proxy' | 'prepare' | 'compact' | 'overflow';
  id: string;
  at: number;
  provider: string;
  model: string;
  stream: boolean;
  appended: number;
  diverged: boolean;
  estimate: RunEstimate;
  reports: StageReport[];
  /** Journal entries by action (`removed`, `truncated`, `spilled`, …). */
  changes: Record<string, number>;
  compacted: boolean;
  overflow: boolean;
  /** `usage`: every upstream call's, summed (with `toolRounds` rounds the proxy answered first). */
  upstream?: { status: number; usage?: Usage; logged: boolean; toolRounds?: number } | undefined;
}

export const when = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
const route = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

export function renderSessionList(rows: readonly SessionListRow[], query: string, total: number): string {
  const body = rows
    .map(
      (r) =>
        `<tr><td class="id" data-label="session"><a href="${esc(route('sessions', r.id))}">${esc(r.id)}</a></td><td data-label="title">${esc(r.title ?? '')}</td><td class="wide">${esc(r.project)}</td><td class="num wide">${fmt(r.messages)}</td><td class="num" data-label="tokens / usable">${r.tokens === undefined ? '—' : `${fmt(r.tokens)} / ${fmt(r.usable ?? 0)}`}</td><td data-label="level">${r.level ? `<span class="level-${esc(r.level)}">${esc(r.level)}</span>` : '—'}</td><td class="wide">${esc(when(r.lastActive))}</td></tr>`,
    )
    .join('');
  const shown = query
    ? `${fmt(rows.length)} of ${fmt(total)} match “${esc(query)}”`
    : `${fmt(rows.length)} of ${fmt(total)}`;
  return `<section aria-labelledby="sessions-h"><h2 id="sessions-h" tabindex="-1">Sessions</h2>
<form class="filters" data-route="sessions" role="search" aria-label="Search sessions">
<label>Session id or title<input type="search" name="q" value="${esc(query)}" autocomplete="off"></label><button type="submit">Search</button>
</form>
<p class="summary" aria-live="polite">${shown} (newest activity first)</p>
<div class="scroll"><table class="stack" aria-label="Sessions"><thead><tr><th scope="col" class="id">session</th><th scope="col">title</th><th scope="col" class="wide">project</th><th scope="col" class="num wide">log rows</th><th scope="col" class="num">tokens / usable</th><th scope="col">level</th><th scope="col" class="wide">last activity (UTC)</th></tr></thead>
<tbody>${body || '<tr><td colspan="7">No session yet.</td></tr>'}</tbody></table></div></section>`;
}

function reportList(c: TimelineCall): string {
  return c.reports
    .map(
      (s) =>
        `<li><strong>${esc(s.stage)}</strong> ${esc(s.status)} ${fmt(s.tokensBefore)} → ${fmt(s.tokensAfter)}${s.detail || s.error ? ` · ${esc(s.error ? `error: ${s.error}` : (s.detail ?? ''))}` : ''}</li>`,
    )
    .join('');
}

const KIND_LABEL: Record<TimelineCall['kind'], string> = {
  proxy: 'proxy call',
  prepare: 'prepare',
  compact: 'compact',
  overflow: 'overflow recovery',
};

/** Where a page of the timeline is: its offset among the newest calls, its size, what was kept. */
export interface TimelinePosition {
  offset: number;
  limit: number;
  /** Calls the session recorded. */
  total: number;
  /** Calls the timeline holds. */
  kept: number;
  /** Calls kept with their details (the newest). */
  detailed: number;
}

function pager(sessionId: string, t: TimelinePosition, shown: number): string {
  const first = t.offset + 1;
  const last = t.offset + shown;
  const link = (offset: number, text: string, label: string) =>
    `<a href="${esc(`${route('sessions', sessionId)}?offset=${offset}`)}" aria-label="${esc(label)}">${esc(text)}</a>`;
  const newer =
    t.offset > 0
      ? link(
          Math.max(0, t.offset - t.limit),
          '← newer',
          `newer calls, from ${fmt(Math.max(1, t.offset - t.limit + 1))}`,
        )
      : '';
  const older = last < t.kept ? link(last, 'older →', `older calls, from ${fmt(last + 1)}`) : '';
  const gone = t.total > t.kept ? ` · the ${fmt(t.total - t.kept)} oldest are no longer kept` : '';
  const details = t.kept > t.detailed ? ` · the newest ${fmt(t.detailed)} keep their details` : '';
  return `<nav class="pager" aria-label="Pages of the timeline">${newer}<span>calls ${fmt(first)}–${fmt(last)} of ${fmt(t.kept)} (newest first)${gone}${details}</span>${older}</nav>`;
}

export function renderTimeline(
  sessionId: string,
  calls: readonly TimelineCall[],
  position?: TimelinePosition,
): string {
  if (calls.length === 0)
    return '<section aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2><p>No call yet: no prepare, compaction or proxy call.</p></section>';
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  const tally = (['proxy', 'prepare', 'compact', 'overflow'] as const)
    .filter((k) => counts.has(k))
    .map(
      (k) =>
        `${fmt(counts.get(k)!)} ${KIND_LABEL[k]}${counts.get(k)! > 1 ? (k === 'overflow' ? ' runs' : 's') : ''}`,
    )
    .join(', ');
  const rows = [...calls]
    .reverse()
    .map((c) => {
      const changed = Object.entries(c.changes)
        .map(([action, n]) => `${esc(action)} ${fmt(n)}`)
        .join(', ');
      const kind = [
        KIND_LABEL[c.kind],
        c.compacted && c.kind !== 'compact' ? 'compaction' : '',
        c.overflow ? 'overflow recovery' : '',
        c.diverged ? 'diverged' : '',
      ]
        .filter(Boolean)
        .join(' · ');
      const how =
        c.kind === 'proxy'
          ? `${c.provider} ${c.model}${c.stream ? ' (stream)' : ''}`
          : `session API, ${c.provider} dialect`;
      const usage = c.upstream?.usage?.inputTokens;
      const cache = cacheLine(c.upstream?.usage);
      const upstream =
        c.kind !== 'proxy'
          ? '<span class="summary">returned to the caller</span>'
          : c.upstream
            ? `${c.upstream.status}${usage !== undefined ? ` · ${fmt(usage)} in` : ''}${roundsNote(c.upstream.toolRounds)}${cache ? `<br><span class="summary">${esc(cache)}</span>` : ''}`
            : '—';
      const reason = levelReason(c.reports, c.estimate.level);
      return `<tr data-kind="${esc(c.kind)}"${c.compacted ? ' class="changed"' : ''}><td data-label="at (UTC)">${esc(when(c.at))}</td><td data-label="call"><a href="${esc(route('sessions', sessionId, 'calls', c.id))}" aria-label="${esc(`${kind} at ${when(c.at)}`)}">${esc(kind)}</a><br><span class="summary">${esc(how)}</span></td><td class="num" data-label="new messages">${c.kind === 'proxy' ? fmt(c.appended) : '—'}</td><td class="num" data-label="tokens">${fmt(c.estimate.before)} → ${fmt(c.estimate.after)}</td><td data-label="level"><span class="level-${esc(c.estimate.level)}">${esc(c.estimate.level)}</span><br><span class="reason">${esc(reason)}</span></td><td class="num" data-label="upstream">${upstream}</td><td data-label="journal">${changed || 'nothing changed'}<details><summary>stages (${c.reports.length})</summary><ul>${reportList(c)}</ul></details></td></tr>`;
    })
    .join('');
  const where = position ? pager(sessionId, position, calls.length) : '';
  return `<section aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline (${tally}${position && position.kept > calls.length ? ' on this page' : ''}; newest first)</h2>${where}
<div class="scroll"><table class="stack" aria-label="Calls"><thead><tr><th scope="col">at (UTC)</th><th scope="col">call</th><th scope="col" class="num">new messages</th><th scope="col" class="num">tokens before → after</th><th scope="col">level, and why</th><th scope="col" class="num">upstream</th><th scope="col">journal and stages</th></tr></thead><tbody>${rows}</tbody></table></div>${where}</section>`;
}

export interface SessionPageInput {
  session: {
    id: string;
    title: string | null;
    project: string;
    createdAt: number;
    lastActive: number;
    lastSeq: number;
  };
  view: ContextView;
  calls: readonly TimelineCall[];
  timeline?: TimelinePosition;
}

export function renderSessionPage(p: SessionPageInput): string {
  const s = p.session;
  return `<nav aria-label="Breadcrumb" class="tabs"><a href="#/sessions">Sessions</a> › <span aria-current="page">${esc(s.id)}</span></nav>
<h2 id="session-h" tabindex="-1" class="view-title">Session ${esc(s.id)}</h2>
<p class="summary">${s.title ? `${esc(s.title)} · ` : ''}${s.project ? `project ${esc(s.project)} · ` : ''}${fmt(s.lastSeq)} log rows · created ${esc(when(s.createdAt))} · last activity ${esc(when(s.lastActive))} UTC</p>
${p.timeline && p.timeline.offset > 0 ? '' : renderContextView(p.view, 'ctx')}${renderTimeline(s.id, p.calls, p.timeline)}`;
}
