/**
 * `ctxcheck inspect --html`: the context view of the transcript and of what the next pre-flight would
 * send, the stage reports and each journal entry, as one self-contained HTML file (no external URL).
 */
import { writeFile } from 'node:fs/promises';
import type { JournalEntry, Message, TokenCounter } from '../../core/index.ts';
import { buildContextView, type ViewBudget } from '../../view/context-model.ts';
import { esc, fmt, renderPage } from '../../view/html.ts';
import { renderContextView } from '../../view/render-context.ts';
import { CliError } from '../io.ts';
import type { InspectReport } from './inspect-report.ts';

export interface InspectPageInput {
  report: InspectReport;
  before: { messages: readonly Message[]; tokens: number; level: string };
  after: {
    messages: readonly Message[];
    journal: readonly JournalEntry[];
    estimate: { after: number; level: string };
  };
  system?: string | undefined;
  counter: TokenCounter;
  budget: ViewBudget;
  top: number;
}

function stageTable(r: InspectReport): string {
  const reports = r.next?.reports ?? [];
  const rows = reports
    .map(
      (s) =>
        `<tr><th scope="row">${esc(s.stage)}</th><td>${esc(s.status)}</td><td class="num">${fmt(s.tokensBefore)}</td><td class="num">${fmt(s.tokensAfter)}</td><td>${esc(s.error ? `error: ${s.error}` : (s.detail ?? ''))}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="stages"><h2 id="stages">Next pre-flight (preset ${esc(r.preset)})</h2>
<div class="scroll"><table aria-label="Stage reports"><thead><tr><th scope="col">stage</th><th scope="col">status</th><th scope="col" class="num">tokens before</th><th scope="col" class="num">after</th><th scope="col">detail</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

function journalTable(journal: readonly JournalEntry[], index: ReadonlyMap<string, number>): string {
  if (journal.length === 0)
    return '<section aria-labelledby="journal"><h2 id="journal">Journal</h2><p>No message was changed.</p></section>';
  const rows = journal
    .map(
      (j) =>
        `<tr><td class="id">${index.has(j.messageId) ? `<a href="#before-m-${index.get(j.messageId)}">${esc(j.messageId)}</a>` : esc(j.messageId)}</td><td>${esc(j.action)}</td><td>${esc(j.stage)}</td><td class="num">${fmt(j.tokensBefore)} → ${fmt(j.tokensAfter)}</td><td><code>${esc(j.location)}</code></td><td>${esc(j.recover)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="journal"><h2 id="journal">Journal (${fmt(journal.length)} entries)</h2>
<div class="scroll"><table aria-label="Journal entries"><thead><tr><th scope="col" class="id">message</th><th scope="col">action</th><th scope="col">stage</th><th scope="col" class="num">tokens</th><th scope="col">where it is</th><th scope="col">how to get it back</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

export function renderInspectPage(i: InspectPageInput): string {
  const changes = new Map<string, string>();
  for (const j of i.after.journal) if (!changes.has(j.messageId)) changes.set(j.messageId, j.action);
  const common = { counter: i.counter, budget: i.budget, top: i.top };
  const before = buildContextView({
    ...common,
    title: `Transcript: ${i.report.file} (${i.report.format}, ${fmt(i.report.messages)} messages)`,
    messages: i.before.messages,
    tokens: i.before.tokens,
    level: i.before.level,
    changes,
    ...(i.system !== undefined ? { system: i.system } : {}),
  });
  const after = buildContextView({
    ...common,
    title: `What the next pre-flight sends (preset ${i.report.preset})`,
    messages: i.after.messages,
    tokens: i.after.estimate.after,
    level: i.after.estimate.level,
    ...(i.system !== undefined ? { system: i.system } : {}),
  });
  // Journal entries name message ids; the list's anchors are by position (ids may repeat in real data).
  const index = new Map<string, number>();
  i.before.messages.forEach((m, n) => {
    if (!index.has(m.id)) index.set(m.id, n);
  });
  const body = `<nav aria-label="Views" class="tabs"><a href="#before">Transcript</a> · <a href="#after">After pre-flight</a> · <a href="#stages">Stages</a> · <a href="#journal">Journal</a></nav>
${renderContextView(before, 'before')}${stageTable(i.report)}${journalTable(i.after.journal, index)}${renderContextView(after, 'after')}`;
  return renderPage({ title: `ctxcheck inspect · ${i.report.file}`, body });
}

export async function writeHtml(file: string, html: string): Promise<void> {
  try {
    await writeFile(file, html);
  } catch (e) {
    throw new CliError(`--html: cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
