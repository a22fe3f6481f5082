/**
 * The service's session pages as HTML fragments: the list of a tenant's sessions (size, level, last
 * activity) and one session — its context view and the timeline of proxy calls with tokens before and
 * after and each stage's report. Links are `#/…` routes of the page script, never URLs with a key.
 */

import type { Usage } from '../core/messages/types.ts';
import type { RunEstimate } from '../core/pipeline/runner.ts';
import type { StageReport } from '../core/pipeline/types.ts';
import type { ContextView } from './context-model.ts';
import { esc, fmt } from './html.ts';
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

/** A proxy call of the session's timeline (`GET /v1/sessions/:id/view` → `calls`). */
export interface TimelineCall {
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
  upstream?: { status: number; usage?: Usage; logged: boolean } | undefined;
}

export const when = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
const route = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

export function renderSessionList(rows: readonly SessionListRow[], query: string, total: number): string {
  const body = rows
    .map(
      (r) =>
        `<tr><td class="id"><a href="${esc(route('sessions', r.id))}">${esc(r.id)}</a></td><td>${esc(r.title ?? '')}</td><td>${esc(r.project)}</td><td class="num">${fmt(r.messages)}</td><td class="num">${r.tokens === undefined ? '—' : `${fmt(r.tokens)} / ${fmt(r.usable ?? 0)}`}</td><td>${r.level ? `<span class="level-${esc(r.level)}">${esc(r.level)}</span>` : '—'}</td><td>${esc(when(r.lastActive))}</td></tr>`,
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
<div class="scroll"><table aria-label="Sessions"><thead><tr><th scope="col" class="id">session</th><th scope="col">title</th><th scope="col">project</th><th scope="col" class="num">log rows</th><th scope="col" class="num">tokens / usable</th><th scope="col">level</th><th scope="col">last activity (UTC)</th></tr></thead>
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

export function renderTimeline(sessionId: string, calls: readonly TimelineCall[]): string {
  if (calls.length === 0)
    return '<section aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2><p>No proxy call yet (the proxy keeps the last 100 calls of a session).</p></section>';
  const rows = [...calls]
    .reverse()
    .map((c) => {
      const changed = Object.entries(c.changes)
        .map(([action, n]) => `${esc(action)} ${fmt(n)}`)
        .join(', ');
      const kind = [
        c.compacted ? 'compaction' : 'call',
        c.overflow ? 'overflow recovery' : '',
        c.diverged ? 'diverged' : '',
      ]
        .filter(Boolean)
        .join(' · ');
      const usage = c.upstream?.usage?.inputTokens;
      return `<tr${c.compacted ? ' class="changed"' : ''}><td>${esc(when(c.at))}</td><td><a href="${esc(route('sessions', sessionId, 'calls', c.id))}">${esc(kind)}</a><br><span class="summary">${esc(`${c.provider} ${c.model}${c.stream ? ' (stream)' : ''}`)}</span></td><td class="num">${fmt(c.appended)}</td><td class="num">${fmt(c.estimate.before)} → ${fmt(c.estimate.after)}</td><td><span class="level-${esc(c.estimate.level)}">${esc(c.estimate.level)}</span></td><td class="num">${c.upstream ? `${c.upstream.status}${usage !== undefined ? ` · ${fmt(usage)} in` : ''}` : '—'}</td><td>${changed || 'nothing changed'}<details><summary>stages (${c.reports.length})</summary><ul>${reportList(c)}</ul></details></td></tr>`;
    })
    .join('');
  return `<section aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline (${fmt(calls.length)} proxy calls, newest first)</h2>
<div class="scroll"><table aria-label="Proxy calls"><thead><tr><th scope="col">at (UTC)</th><th scope="col">call</th><th scope="col" class="num">new messages</th><th scope="col" class="num">tokens before → after</th><th scope="col">level</th><th scope="col" class="num">upstream</th><th scope="col">journal and stages</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
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
}

export function renderSessionPage(p: SessionPageInput): string {
  const s = p.session;
  return `<nav aria-label="Breadcrumb" class="tabs"><a href="#/sessions">Sessions</a> › <span aria-current="page">${esc(s.id)}</span></nav>
<h2 id="session-h" tabindex="-1" class="view-title">Session ${esc(s.id)}</h2>
<p class="summary">${s.title ? `${esc(s.title)} · ` : ''}${s.project ? `project ${esc(s.project)} · ` : ''}${fmt(s.lastSeq)} log rows · created ${esc(when(s.createdAt))} · last activity ${esc(when(s.lastActive))} UTC</p>
${renderContextView(p.view, 'ctx')}${renderTimeline(s.id, p.calls)}`;
}
