/**
 * `ctxcheck inspect --html`: one self-contained HTML file (no external URL) that opens on what the next
 * pre-flight would change (with the summary it writes, whole), then the transcript's context view —
 * system prompt, tool schemas, every message with its full text — the stage reports, the journal (each
 * original linked to its row on the page: the file keeps it unchanged), what the pre-flight would send,
 * and the messages before the transcript's compaction boundary, which the model no longer sees.
 */
import {
  type JournalEntry,
  type Message,
  recoverText,
  sameMessage,
  type TokenCounter,
} from '../../core/index.ts';
import type { CallMessage, CallPageInput, FileSource } from '../../view/call-model.ts';
import {
  buildContextView,
  flatPreview,
  messageContent,
  rowText,
  type ToolSchema,
  type ViewBudget,
} from '../../view/context-model.ts';
import { esc, fmt, renderPage } from '../../view/html.ts';
import { renderCallChanges } from '../../view/render-call.ts';
import { renderContextView } from '../../view/render-context.ts';
import { boundaryLine, type InspectReport } from './inspect-report.ts';

export interface InspectPageInput {
  report: InspectReport;
  before: { messages: readonly Message[]; tokens: number; level: string };
  after: {
    messages: readonly Message[];
    send?: readonly Message[];
    journal: readonly JournalEntry[];
    reports?: CallPageInput['call']['reports'];
    estimate: { before?: number; after: number; level: string; anchored?: boolean };
  };
  /** Messages before the transcript's compaction boundary (not in the context). */
  earlier?: readonly Message[];
  system?: string | undefined;
  tools?: readonly ToolSchema[] | undefined;
  counter: TokenCounter;
  budget: ViewBudget;
  top: number;
}

function stageTable(r: InspectReport): string {
  const reports = r.next?.reports ?? [];
  const rows = reports
    .map(
      (s) =>
        `<tr><th scope="row">${esc(s.stage)}</th><td data-label="status">${esc(s.status)}</td><td class="num" data-label="tokens before">${fmt(s.tokensBefore)}</td><td class="num" data-label="after">${fmt(s.tokensAfter)}</td><td data-label="detail">${esc(s.error ? `error: ${s.error}` : (s.detail ?? ''))}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="stages"><h2 id="stages">Next pre-flight (preset ${esc(r.preset)})</h2>
<div class="scroll"><table class="stack" aria-label="Stage reports"><thead><tr><th scope="col">stage</th><th scope="col">status</th><th scope="col" class="num">tokens before</th><th scope="col" class="num">after</th><th scope="col">detail</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function journalTable(journal: readonly JournalEntry[], file: FileSource): string {
  if (journal.length === 0)
    return '<section aria-labelledby="journal"><h2 id="journal">Journal</h2><p>No message was changed.</p></section>';
  const rows = journal
    .map((j) => {
      const anchor = file.anchor(j.messageId);
      const id = anchor ? `<a href="#${esc(anchor)}">${esc(j.messageId)}</a>` : esc(j.messageId);
      const back = recoverText(j, { kind: 'file', file: file.name, position: file.position });
      return `<tr><td class="id" data-label="message">${id}</td><td data-label="action">${esc(j.action)}</td><td data-label="stage">${esc(j.stage)}</td><td class="num" data-label="tokens">${fmt(j.tokensBefore)} → ${fmt(j.tokensAfter)}</td><td data-label="where it is"><code>${esc(j.location)}</code></td><td data-label="how to get it back">${esc(back)}</td></tr>`;
    })
    .join('');
  return `<section aria-labelledby="journal"><h2 id="journal">Journal (${fmt(journal.length)} entries)</h2>
<div class="scroll"><table class="stack" aria-label="Journal entries"><thead><tr><th scope="col" class="id">message</th><th scope="col">action</th><th scope="col">stage</th><th scope="col" class="num">tokens</th><th scope="col">where it is</th><th scope="col">how to get it back</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

/** The next pre-flight as a call: the transcript's messages as log rows, what it sends as the output list. */
function preflightCall(i: InspectPageInput, file: FileSource): CallPageInput {
  const messages = i.before.messages;
  const at = new Map<string, number>();
  messages.forEach((m, n) => {
    if (!at.has(m.id)) at.set(m.id, n);
  });
  const send = i.after.send ?? i.after.messages;
  const output: CallMessage[] = send.map((m) => {
    const n = at.get(m.id);
    return n === undefined ? { id: m.id } : { seq: n + 1, changed: !sameMessage(messages[n]!, m) };
  });
  const made = send
    .filter((m) => !at.has(m.id))
    .map((m) => {
      const text = messageContent(m);
      return {
        id: m.id,
        role: m.role,
        tokens: i.counter.countMessage(m),
        chars: text.length,
        text: rowText(text),
        ...(m.meta?.kind ? { kind: m.meta.kind } : {}),
      };
    });
  return {
    sessionId: '',
    file,
    call: {
      kind: 'prepare',
      id: 'next-pre-flight',
      at: 0,
      provider: 'neutral',
      model: '',
      stream: false,
      appended: 0,
      diverged: false,
      estimate: {
        before: i.after.estimate.before ?? i.before.tokens,
        after: i.after.estimate.after,
        level: i.after.estimate.level as CallPageInput['call']['estimate']['level'],
        anchored: i.after.estimate.anchored ?? false,
      },
      reports: i.after.reports ?? [],
      changes: {},
      compacted: false,
      overflow: false,
    },
    journal: i.after.journal,
    rows: messages.map((m, n) => {
      const text = messageContent(m);
      return {
        seq: n + 1,
        id: m.id,
        role: m.role,
        characters: text.length,
        preview: flatPreview(text),
        compacted: false,
        tokens: i.counter.countMessage(m),
        text: rowText(text),
      };
    }),
    messages: { input: messages.map((_, n) => ({ seq: n + 1, changed: false })), output },
    made,
  };
}

function earlierSection(earlier: readonly Message[], r: InspectReport): string {
  if (earlier.length === 0 || !r.boundary) return '';
  const rows = earlier
    .map(
      (m, n) =>
        `<li><strong>${n + 1}</strong> ${esc(m.role)} · ${esc(flatPreview(messageContent(m), 100))}</li>`,
    )
    .join('');
  return `<section aria-labelledby="earlier"><h2 id="earlier">Before the compaction boundary (${fmt(earlier.length)} messages, not in the context)</h2>
<p class="summary">${esc(boundaryLine(r.boundary))}.</p><details><summary>list them</summary><ol class="earlier">${rows}</ol></details></section>`;
}

export function renderInspectPage(i: InspectPageInput): string {
  const changes = new Map<string, string>();
  for (const j of i.after.journal) if (!changes.has(j.messageId)) changes.set(j.messageId, j.action);
  const common = { counter: i.counter, budget: i.budget, top: i.top };
  const prompt = {
    ...(i.system !== undefined ? { system: i.system } : {}),
    ...(i.tools && i.tools.length > 0 ? { tools: i.tools } : {}),
  };
  const before = buildContextView({
    ...common,
    ...prompt,
    title: `Transcript: ${i.report.file} (${i.report.format}, ${fmt(i.report.messages)} messages${i.report.boundary ? ' after its compaction boundary' : ''})`,
    messages: i.before.messages,
    tokens: i.before.tokens,
    level: i.before.level,
    changes,
  });
  const after = buildContextView({
    ...common,
    ...prompt,
    title: `What the next pre-flight sends (preset ${i.report.preset})`,
    messages: i.after.messages,
    tokens: i.after.estimate.after,
    level: i.after.estimate.level,
  });
  // Journal entries name message ids; the list's anchors are by position (ids may repeat in real data).
  const index = new Map<string, number>();
  i.before.messages.forEach((m, n) => {
    if (!index.has(m.id)) index.set(m.id, n);
  });
  const offset = i.report.boundary?.index ?? 0;
  const file: FileSource = {
    name: i.report.file,
    anchor: (id) => (index.has(id) ? `before-m-${index.get(id)}` : undefined),
    position: (id) => (index.has(id) ? index.get(id)! + offset : undefined),
  };
  const body = `<nav aria-label="Views" class="tabs"><a href="#changed-h">Changes</a> · <a href="#before">Transcript</a> · <a href="#stages">Stages</a> · <a href="#journal">Journal</a> · <a href="#after">After pre-flight</a>${i.earlier && i.earlier.length > 0 ? ' · <a href="#earlier">Before the boundary</a>' : ''}</nav>
${renderCallChanges(preflightCall(i, file), `What the next pre-flight changes (preset ${i.report.preset})`)}${renderContextView(before, 'before')}${stageTable(i.report)}${journalTable(i.after.journal, file)}${renderContextView(after, 'after')}${earlierSection(i.earlier ?? [], i.report)}`;
  return renderPage({ title: `ctxcheck inspect · ${i.report.file}`, body });
}
