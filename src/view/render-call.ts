/**
 * One call as an HTML fragment — a proxy call, or a `prepare`/`compact`/`overflow` run of the session
 * API. It opens on what the call changed (sent, inserted, removed, rewritten, with tokens; a run of
 * messages changed the same way is one line) and on what it sends that the previous call did not; then
 * the prompt as it went out — system prompt, injected blocks, tool schemas, messages — each with its
 * tokens and full text, beside every message the client sent (a filter away), each change with a link
 * that gets the original back; then the stages.
 */
import { cacheLine, roundsNote } from './cache-line.ts';
import { logLink, madeFromOf, madeNote, recoverLink } from './call-links.ts';
import {
  type CallPageInput,
  type ChangeGroup,
  callEntries,
  changeGroups,
  diffAgainst,
  type Entry,
  type PromptText,
  seqRanges,
} from './call-model.ts';
import { fullText } from './full-text.ts';
import { chunkedTable, esc, fmt } from './html.ts';
import { levelReason } from './level-reason.ts';
import { renderAdded } from './render-added.ts';
import { when } from './render-session.ts';

export { recoverHref } from './call-links.ts';
export type { CallLogRow, CallMessage, CallPageInput, MadeMessage } from './call-model.ts';

const KIND_TITLE: Record<string, string> = {
  proxy: 'Proxy call',
  prepare: 'Prepare',
  compact: 'Compaction',
  overflow: 'Overflow recovery',
};

const STATE_TEXT: Record<Entry['state'], string> = {
  sent: 'sent',
  'rewritten-earlier': 'sent as an earlier call rewrote it',
  inserted: 'inserted by this call',
  'made-earlier': 'made by ctxkit earlier',
  changed: 'changed by this call',
  unsent: 'not sent',
  'left-out': 'not sent: left out by an earlier call (not in the context this call started from)',
  missing: 'no longer in the session log (cleared)',
};

/** The filter states of a row: `sent` or `unsent`, and `changed` when this call changed it. */
function states(e: Entry): string {
  return [e.sent ? 'sent' : 'unsent', e.state === 'changed' || e.state === 'inserted' ? 'changed' : '']
    .filter(Boolean)
    .join(' ');
}

function who(e: Entry): string {
  const name = e.row
    ? `${e.role}`
    : e.state === 'inserted' || e.state === 'made-earlier'
      ? `${e.role || 'message'} · added by ctxkit`
      : e.role;
  const notes = [
    e.row?.arrival ? 'the log holds it cut on arrival' : '',
    e.state === 'rewritten-earlier' ? 'rewritten by an earlier call' : '',
  ].filter(Boolean);
  return `${esc(name)}${notes.map((n) => ` · <span class="summary">${esc(n)}</span>`).join('')}`;
}

/** What happened to a message in this call, and how to get its original back. */
function fate(p: CallPageInput, e: Entry, madeFrom: Map<string, string[]>): { what: string; back: string } {
  if (e.journal.length > 0)
    return {
      what: e.journal
        .map(
          (j) =>
            `<strong>${esc(j.action)}</strong> by ${esc(j.stage)} (${fmt(j.tokensBefore)} → ${fmt(j.tokensAfter)})`,
        )
        .join('<br>'),
      back: [
        ...new Set(
          e.journal.map((j) =>
            j.action === 'inserted'
              ? 'nothing removed'
              : !e.row && j.location === 'session-log'
                ? madeNote(j.messageId, madeFrom)
                : recoverLink(p, j, e.row),
          ),
        ),
      ].join('<br>'),
    };
  const what = `<strong>${esc(STATE_TEXT[e.state])}</strong>`;
  if (e.row && (e.state === 'unsent' || e.state === 'left-out'))
    return { what, back: logLink(p, e.row, 'left out') };
  if (e.row && e.state === 'rewritten-earlier') return { what, back: logLink(p, e.row, 'the original of') };
  if (e.state === 'inserted' || e.state === 'made-earlier') return { what, back: madeNote(e.id, madeFrom) };
  return { what: e.state === 'sent' ? 'sent' : what, back: '' };
}

function entryRow(p: CallPageInput, e: Entry, madeFrom: Map<string, string[]>): string {
  const { what, back } = fate(p, e, madeFrom);
  const cls = e.state === 'inserted' ? 'made' : e.state === 'sent' ? '' : 'changed';
  const seq = e.seq !== undefined ? ` data-seq="${e.seq}"` : ` data-made="${esc(e.id)}"`;
  return `<tr${seq} data-state="${states(e)}"${cls ? ` class="${cls}"` : ''}><td class="num" data-label="seq">${e.seq ?? '—'}</td><td class="id wide">${esc(e.id)}</td><td data-label="message">${who(e)}</td><td class="num" data-label="tokens">${e.tokens === undefined ? '' : fmt(e.tokens)}</td><td class="preview" data-label="content">${esc(e.preview)}${fullText(e.text, e.tokens, e.chars)}</td><td data-label="this call">${what}</td><td data-label="get it back">${back}</td></tr>`;
}

/** A run of messages an earlier call left out, as one row that lists them. */
function leftOutRow(p: CallPageInput, run: Entry[]): string {
  const seqs = run.flatMap((e) => (e.seq !== undefined ? [e.seq] : []));
  const tokens = run.reduce((n, e) => n + (e.tokens ?? 0), 0);
  const members = run
    .map(
      (e) =>
        `<li>${e.seq} ${esc(e.role)} ${esc(e.preview.slice(0, 60))} ${e.row ? logLink(p, e.row, 'left out') : ''}</li>`,
    )
    .join('');
  return `<tr class="group" data-state="unsent" data-seqs="${esc(seqRanges(seqs))}"><td class="num" data-label="seq">${esc(seqRanges(seqs))}</td><td class="id wide"></td><td data-label="message">${fmt(run.length)} messages</td><td class="num" data-label="tokens">${fmt(tokens)}</td><td class="preview" data-label="content"><details><summary>list them</summary><ul>${members}</ul></details></td><td data-label="this call"><strong>not sent: left out by an earlier call</strong></td><td data-label="get it back">each from the session log (listed)</td></tr>`;
}

function promptRow(id: string, label: string, kind: string, t: PromptText, ctxkit = false): string {
  return `<tr data-state="sent prompt" data-kind="${kind}"${ctxkit ? ' class="made"' : ''}><td class="num" data-label="seq">—</td><td class="id wide">${esc(id)}</td><td data-label="message">${esc(label)}${ctxkit ? ' · <span class="summary">added by ctxkit</span>' : ''}</td><td class="num" data-label="tokens">${fmt(t.tokens)}</td><td class="preview" data-label="content">${t.text === undefined ? '<span class="summary">text not kept</span>' : esc(t.text.replace(/\s+/g, ' ').slice(0, 120))}${fullText(t.text, t.tokens, t.chars)}</td><td data-label="this call">sent</td><td data-label="get it back"></td></tr>`;
}

function promptRows(p: CallPageInput): string[] {
  const out: string[] = [];
  const parts = p.prompt;
  if (parts?.system) out.push(promptRow('system', 'system prompt', 'system', parts.system));
  if (parts?.injected)
    out.push(
      promptRow(
        'injected',
        'memory block (injected into the system prompt)',
        'injected',
        parts.injected,
        true,
      ),
    );
  for (const t of parts?.tools ?? [])
    out.push(promptRow(`tool-${t.name}`, `tool schema: ${t.name}`, 'tools', t));
  return out;
}

/** The list's rows: the prompt's parts, then every message, runs left out by earlier calls as one row. */
function listRows(p: CallPageInput, entries: readonly Entry[], madeFrom: Map<string, string[]>): string[] {
  const out = promptRows(p);
  let run: Entry[] = [];
  const flush = () => {
    if (run.length === 1) out.push(entryRow(p, run[0]!, madeFrom));
    else if (run.length > 1) out.push(leftOutRow(p, run));
    run = [];
  };
  for (const e of entries) {
    if (e.state === 'left-out') {
      run.push(e);
      continue;
    }
    flush();
    out.push(entryRow(p, e, madeFrom));
  }
  flush();
  return out;
}

/** Which messages a group holds: its log seqs, and how many ctxkit made. */
function groupWhich(seqs: readonly number[], made: number): string {
  const parts = [
    seqs.length > 0 ? `seq ${seqRanges(seqs)}` : '',
    made > 0 ? `${fmt(made)} made by ctxkit` : '',
  ];
  const which = parts.filter(Boolean).join(' and ');
  return which ? ` (${esc(which)})` : '';
}

function groupRow(p: CallPageInput, g: ChangeGroup, madeFrom: Map<string, string[]>): string {
  const first = g.entries[0]!;
  if (g.entries.length === 1) {
    const e = first;
    const { what, back } = fate(p, e, madeFrom);
    const name =
      e.seq !== undefined
        ? `seq ${e.seq} · ${esc(e.role)}`
        : `${esc(e.id)}${e.role ? ` · ${esc(e.role)}` : ''}`;
    return `<tr class="${e.state === 'inserted' ? 'made' : 'changed'}"><td data-label="change">${what}</td><td data-label="message">${name}<br><span class="summary">${esc(e.preview)}</span>${fullText(e.text, e.tokens, e.chars)}</td><td class="num" data-label="tokens">${fmt(g.tokensBefore)} → ${fmt(g.tokensAfter)}</td><td data-label="get it back">${back}</td></tr>`;
  }
  const seqs = g.entries.flatMap((e) => (e.seq !== undefined ? [e.seq] : []));
  const members = g.entries
    .map((e) => {
      const actions = e.journal.map((j) => j.action).join(', ');
      const links = e.journal.map((j) =>
        e.row || j.location !== 'session-log' ? recoverLink(p, j, e.row) : madeNote(j.messageId, madeFrom),
      );
      return `<li>${e.seq !== undefined ? `seq ${e.seq}` : esc(e.id)} · ${esc(e.role)} · ${esc(actions)} · ${esc(e.preview.slice(0, 60))} ${[...new Set(links)].join(' ')}</li>`;
    })
    .join('');
  return `<tr class="changed"><td data-label="change"><strong>${esc(g.what)}</strong></td><td data-label="message">${fmt(g.entries.length)} messages${groupWhich(seqs, g.entries.length - seqs.length)}<details><summary>list them</summary><ul>${members}</ul></details></td><td class="num" data-label="tokens">${fmt(g.tokensBefore)} → ${fmt(g.tokensAfter)}</td><td data-label="get it back">each one listed</td></tr>`;
}

/**
 * "What this call changed" on its own (the call page's first section; `ctxcheck inspect --html` opens
 * on it for the next pre-flight): counts with tokens, then the changes, a run changed alike as one line.
 */
export function renderCallChanges(p: CallPageInput, title = 'What this call changed'): string {
  const reason = levelReason(p.call.reports, p.call.estimate.level);
  const e = p.call.estimate;
  const lead = `<p class="summary">tokens <strong>${fmt(e.before)} → ${fmt(e.after)}</strong> · level <strong class="level-${esc(e.level)}">${esc(e.level)}</strong> <span class="reason">(${esc(reason)})</span></p>`;
  return changesSection(p, callEntries(p), reason, madeFromOf(p.journal), title, lead);
}

function changesSection(
  p: CallPageInput,
  entries: readonly Entry[],
  reason: string,
  madeFrom: Map<string, string[]>,
  title = 'What this call changed',
  lead = '',
): string {
  const groups = changeGroups(entries, p.journal);
  const sent = entries.filter((e) => e.sent);
  const sum = (xs: readonly Entry[]) => xs.reduce((n, e) => n + (e.tokens ?? 0), 0);
  const inserted = entries.filter((e) => e.state === 'inserted');
  const byAction = new Map<string, { n: number; before: number; after: number }>();
  for (const j of p.journal) {
    if (j.action === 'inserted') continue;
    const a = byAction.get(j.action) ?? { n: 0, before: 0, after: 0 };
    a.n++;
    a.before += j.tokensBefore;
    a.after += j.tokensAfter;
    byAction.set(j.action, a);
  }
  const chips = [
    p.messages ? `${fmt(sent.length)} messages sent` : '',
    inserted.length > 0 ? `${fmt(inserted.length)} inserted (${fmt(sum(inserted))} tokens)` : '',
    ...[...byAction].map(([a, x]) => `${fmt(x.n)} ${a} (${fmt(x.before)} → ${fmt(x.after)} tokens)`),
  ].filter(Boolean);
  const table =
    groups.length === 0
      ? `<p>This call changed nothing: ${esc(reason)}.</p>`
      : `<div class="scroll"><table class="stack" aria-label="What this call changed"><thead><tr><th scope="col">change</th><th scope="col">message</th><th scope="col" class="num">tokens</th><th scope="col">get it back</th></tr></thead><tbody>${groups.map((g) => groupRow(p, g, madeFrom)).join('')}</tbody></table></div>`;
  return `<section aria-labelledby="changed-h"><h2 id="changed-h">${esc(title)}</h2>${lead}<ul class="chips" aria-label="In numbers">${chips.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>${table}</section>`;
}

/** The first few ids of a list, and how many more. */
function someIds(ids: readonly string[], shown = 4): string {
  return ids.length <= shown
    ? ids.join(', ')
    : `${ids.slice(0, shown).join(', ')} and ${fmt(ids.length - shown)} more`;
}

function diffSection(p: CallPageInput, entries: readonly Entry[]): string {
  const prev = p.previous;
  if (!prev) return '';
  const title = `Since the previous call (${KIND_TITLE[prev.kind]?.toLowerCase() ?? prev.kind} ${prev.id.slice(0, 8)}, ${when(prev.at)} UTC)`;
  if (!prev.output || !p.messages)
    return `<section aria-labelledby="since-h"><h2 id="since-h">${esc(title)}</h2><p class="summary">The previous call’s list of what it sent is not kept: no difference to show.</p></section>`;
  const d = diffAgainst(entries, p.messages.output, prev.output);
  const addedSeqs = d.added.flatMap((e) => (e.seq !== undefined ? [e.seq] : []));
  const addedMade = d.added.filter((e) => e.seq === undefined);
  const goneSeqs = d.gone.flatMap((g) => (g.seq !== undefined ? [g.seq] : []));
  const goneMade = d.gone.filter((g) => g.seq === undefined);
  const lines = [
    addedSeqs.length > 0
      ? `+ ${fmt(addedSeqs.length)} log messages now sent that it did not send: seq ${seqRanges(addedSeqs)}`
      : '',
    addedMade.length > 0
      ? `+ ${fmt(addedMade.length)} made by ctxkit: ${someIds(addedMade.map((e) => e.id))}`
      : '',
    goneSeqs.length > 0
      ? `− ${fmt(goneSeqs.length)} log messages it sent, no longer sent: seq ${seqRanges(goneSeqs)}`
      : '',
    goneMade.length > 0
      ? `− ${fmt(goneMade.length)} made by ctxkit, no longer sent: ${someIds(goneMade.map((g) => g.id ?? ''))}`
      : '',
    d.rewritten.length > 0
      ? `~ ${fmt(d.rewritten.length)} sent rewritten in one and not the other: seq ${seqRanges(d.rewritten.map((r) => r.seq))}`
      : '',
  ].filter(Boolean);
  return `<section aria-labelledby="since-h"><h2 id="since-h">${esc(title)}</h2>${lines.length === 0 ? '<p>The same messages as the previous call.</p>' : `<ul>${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`}</section>`;
}

function stagesSection(p: CallPageInput): string {
  const reports = p.call.reports
    .map(
      (s) =>
        `<tr><th scope="row">${esc(s.stage)}</th><td data-label="status">${esc(s.status)}</td><td class="num" data-label="tokens before">${fmt(s.tokensBefore)}</td><td class="num" data-label="after">${fmt(s.tokensAfter)}</td><td data-label="detail">${esc(s.error ? `error: ${s.error}` : (s.detail ?? ''))}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="stages-h"><h2 id="stages-h">Stages</h2><div class="scroll"><table class="stack" aria-label="Stage reports"><thead><tr><th scope="col">stage</th><th scope="col">status</th><th scope="col" class="num">tokens before</th><th scope="col" class="num">after</th><th scope="col">detail</th></tr></thead><tbody>${reports}</tbody></table></div></section>`;
}

const HEAD = (to: string) =>
  `<thead><tr><th scope="col" class="num">seq</th><th scope="col" class="id wide">message</th><th scope="col">role</th><th scope="col" class="num">tokens</th><th scope="col" class="preview">content</th><th scope="col">${esc(to)}</th><th scope="col">get it back</th></tr></thead>`;

export function renderCallPage(p: CallPageInput): string {
  const c = p.call;
  const entries = callEntries(p);
  const madeFrom = madeFromOf(p.journal);
  const reason = levelReason(c.reports, c.estimate.level);
  const usage = c.upstream?.usage;
  const proxy = c.kind === 'proxy';
  const title = KIND_TITLE[c.kind] ?? 'Call';
  const to = proxy ? (p.messages?.retried ? 'upstream (the retry)' : 'upstream') : 'returned';
  const lists = p.messages
    ? `${fmt(p.messages.input.length)} ${proxy ? 'sent by the client' : 'before'}, ${fmt(p.messages.output.length)} ${proxy ? 'sent upstream' : 'after'}${p.messages.cut ? ' (lists cut at their bound)' : ''}`
    : `${fmt(p.rows.length)} log rows, reconstructed from the log: the call was recorded before calls kept their message lists`;
  const what = proxy
    ? `${esc(c.provider)} ${esc(c.model)}${c.stream ? ' (stream)' : ''} · ${fmt(c.appended)} new messages${c.diverged ? ' · the client’s history diverged from the log' : ''}`
    : `the session API’s <code>${esc(c.kind)}</code> (${esc(c.provider)} dialect)`;
  const upstream = proxy
    ? ` · upstream ${c.upstream ? `${c.upstream.status}${usage?.inputTokens !== undefined ? `, ${fmt(usage.inputTokens)} input tokens` : ''}${roundsNote(c.upstream.toolRounds)}${cacheLine(usage) ? ` · prompt cache: ${esc(cacheLine(usage))}` : ''}` : 'not reached'}${c.overflow ? ' · recovered from a context overflow' : ''}`
    : '';
  const parts = promptRows(p).length;
  return `<nav aria-label="Breadcrumb" class="tabs"><a href="#/sessions">Sessions</a> › <a href="#/sessions/${esc(encodeURIComponent(p.sessionId))}">${esc(p.sessionId)}</a> › <span aria-current="page">${esc(title.toLowerCase())} ${esc(c.id.slice(0, 8))}</span></nav>
<h2 id="call-h" tabindex="-1" class="view-title">${esc(title)} ${esc(c.id)}</h2>
<p class="summary">${esc(when(c.at))} UTC · ${what} · tokens <strong>${fmt(c.estimate.before)} → ${fmt(c.estimate.after)}</strong> · level after it <strong class="level-${esc(c.estimate.level)}">${esc(c.estimate.level)}</strong> <span class="reason">(${esc(reason)})</span>${c.estimate.anchored ? ' · anchored to reported usage' : ''}${upstream}</p>
${changesSection(p, entries, reason, madeFrom)}${diffSection(p, entries)}${renderAdded(p.added)}
<section aria-labelledby="sent-h"><h2 id="sent-h">${esc(proxy ? 'Client sent' : 'Context before')} → ${esc(to)} (${lists}; ${fmt(p.journal.length)} journal entries)</h2>
<p class="summary">The prompt in the order the model reads it${parts > 0 ? `: ${fmt(parts)} prompt parts (system prompt, injected blocks, tool schemas), then the messages` : ''}. Open a row’s “full text” to read it whole.</p>
<form class="filters" data-filter-for="call-list" role="search" aria-label="Filter the messages of the call">
<label>Show<select name="state"><option value="sent" selected>what went ${proxy ? 'upstream' : 'back'}</option><option value="changed">changed by this call</option><option value="unsent">not sent</option><option value="">everything the ${proxy ? 'client sent' : 'context held'}</option></select></label>
<label>Search<input type="search" name="q" autocomplete="off"></label>
<output aria-live="polite"></output>
</form>
${chunkedTable('call-list', 'Messages of the call', HEAD(to), listRows(p, entries, madeFrom))}</section>
${stagesSection(p)}
<section aria-labelledby="recovered-h"><h2 id="recovered-h">Recovered content</h2><p class="summary">Follow a “get it back” link: the original is read with your key and shown here.</p><pre id="recovered" tabindex="-1" aria-live="polite"></pre></section>`;
}
