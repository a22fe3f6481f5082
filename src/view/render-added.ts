/**
 * What ctxkit added to a call's system prompt on its own — today the session's memory block — as a
 * section of the call page, with its tokens and a link to each memory it holds (read with the key,
 * as every other "get it back" link). Nothing is rendered when the call added nothing.
 */
import { esc, fmt } from './html.ts';

export interface CallAdditions {
  /** The memory block appended to the client's system prompt. */
  memory?: { tokens: number; memoryIds: readonly string[]; recall: number };
}

export function renderAdded(added: CallAdditions | undefined): string {
  const m = added?.memory;
  if (!m) return '';
  const links = m.memoryIds
    .map(
      (id) =>
        `<li><a href="${esc(`/v1/memories/${encodeURIComponent(id)}`)}" data-recover="${esc(id)}" aria-label="${esc(`Read memory ${id}`)}">${esc(id)}</a></li>`,
    )
    .join('');
  const recall = m.recall > 0 ? `, ${fmt(m.recall)} recalled messages of other sessions` : '';
  return `<section aria-labelledby="added-h"><h2 id="added-h">Added by ctxkit</h2><p class="summary">The memory block appended to the system prompt: <strong>${fmt(m.tokens)} tokens</strong>, ${fmt(m.memoryIds.length)} memories${recall}.</p>${links ? `<ul>${links}</ul>` : ''}</section>`;
}
