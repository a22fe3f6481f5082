/**
 * A context view as HTML: the window as a bar by category against usable input with the warn, compact and
 * block marks, a legend table with the same numbers, the largest items and the message-by-message list.
 */
import type { ContextView, MessageRow } from './context-model.ts';
import { CATEGORY_COLOURS, chunkedTable, esc, fmt, pct } from './html.ts';

function windowPicture(v: ContextView, id: string): string {
  const { budget } = v;
  const scale = Math.max(budget.usable, v.tokens, v.counted, 1);
  const used = v.counted === 0 ? 0 : Math.min(1, v.tokens / scale);
  const segs = v.segments
    .map((s) => {
      const width = v.counted === 0 ? 0 : (s.tokens / v.counted) * used * 100;
      return `<div class="seg" style="width:${width.toFixed(3)}%;background:${CATEGORY_COLOURS[s.category]}" title="${esc(`${s.category}: ${fmt(s.tokens)} tokens`)}"></div>`;
    })
    .join('');
  // A label near the right end is drawn to the left of its line, so it never widens the page.
  const mark = (name: string, at: number) =>
    `<div class="mark mark-${name}${at / scale > 0.6 ? ' mark-end' : ''}" style="left:${((at / scale) * 100).toFixed(3)}%" aria-hidden="true"><span>${esc(name)}</span></div>`;
  const described = v.segments.map((s) => `${s.category} ${fmt(s.tokens)}`).join(', ');
  const label = `${fmt(v.tokens)} of ${fmt(budget.usable)} usable tokens (${pct(v.tokens, budget.usable)}), level ${v.level}: ${described}. Warn at ${fmt(budget.warning)}, compact at ${fmt(budget.autoCompact)}, block at ${fmt(budget.blocking)}.`;
  const legend = v.segments
    .map(
      (s) =>
        `<tr><th scope="row"><span class="swatch" style="background:${CATEGORY_COLOURS[s.category]}" aria-hidden="true"></span>${esc(s.category)}</th><td class="num">${fmt(s.items)}</td><td class="num" data-tokens="${s.category}">${fmt(s.tokens)}</td><td class="num">${pct(s.tokens, budget.usable)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="${id}-window">
<h2 id="${id}-window">The window</h2>
<p class="summary"><strong>${fmt(v.tokens)}</strong> tokens of ${fmt(budget.usable)} usable (window ${fmt(budget.window)}) · ${pct(v.tokens, budget.usable)} · level <strong class="level-${esc(v.level)}">${esc(v.level)}</strong>${v.tokens !== v.counted ? ` · counted per item: ${fmt(v.counted)}` : ''}</p>
<div class="marks"></div>
<div class="bar" role="img" aria-label="${esc(label)}">${segs}${mark('warn', budget.warning)}${mark('compact', budget.autoCompact)}${mark('block', budget.blocking)}</div>
<div class="scroll"><table aria-label="Tokens by category"><thead><tr><th scope="col">category</th><th scope="col" class="num">items</th><th scope="col" class="num">tokens</th><th scope="col" class="num">of usable</th></tr></thead>
<tbody>${legend}</tbody></table></div>
<p class="summary">Levels: warn ≥ ${fmt(budget.warning)}, compact ≥ ${fmt(budget.autoCompact)}, block ≥ ${fmt(budget.blocking)}.</p>
</section>`;
}

function row(r: MessageRow, id: string, anchor: boolean): string {
  // The list's row is the anchor; the largest items link to it from their number (shown at any width).
  const target = `${id}-m-${r.index}`;
  const n = anchor
    ? `<td class="num">${r.index + 1}</td>`
    : `<td class="num"><a href="#${esc(target)}" aria-label="${esc(`message ${r.index + 1} in the list`)}">${r.index + 1}</a></td>`;
  return `<tr data-kind="${r.category}"${anchor ? ` id="${esc(target)}"` : ''}${r.change ? ' class="changed"' : ''}>${n}<td class="id wide">${esc(r.id)}</td><td>${esc(r.label)}</td><td><span class="swatch k-${r.category}" aria-hidden="true"></span>${esc(r.category)}${r.change ? ` · <strong>${esc(r.change)}</strong>` : ''}</td><td class="num">${fmt(r.tokens)}</td><td class="preview">${esc(r.preview)}</td></tr>`;
}

const HEAD =
  '<thead><tr><th scope="col" class="num">#</th><th scope="col" class="id wide">id</th><th scope="col">message</th><th scope="col">kind</th><th scope="col" class="num">tokens</th><th scope="col" class="preview">preview</th></tr></thead>';

function largestItems(v: ContextView, id: string): string {
  return `<section aria-labelledby="${id}-largest">
<h2 id="${id}-largest">Largest items</h2>
<div class="scroll"><table aria-label="Largest messages">${HEAD}<tbody>${v.largest.map((r) => row(r, id, false)).join('')}</tbody></table></div>
</section>`;
}

function messageList(v: ContextView, id: string): string {
  const kinds = [...new Set(v.rows.map((r) => r.category))];
  return `<section aria-labelledby="${id}-messages">
<h2 id="${id}-messages">Messages (${fmt(v.rows.length)})</h2>
<form class="filters" data-filter-for="${id}-list" role="search" aria-label="Filter messages">
<label>Search<input type="search" name="q" autocomplete="off"></label>
<label>Kind<select name="kind"><option value="">all</option>${kinds.map((k) => `<option>${esc(k)}</option>`).join('')}</select></label>
<output aria-live="polite"></output>
</form>
${chunkedTable(
  `${id}-list`,
  'Messages in order',
  HEAD,
  v.rows.map((r) => row(r, id, true)),
)}
</section>`;
}

/** The three parts of a context view; `id` prefixes element ids so two views fit one page. */
export function renderContextView(v: ContextView, id = 'ctx'): string {
  return `<div class="context-view" id="${esc(id)}"><h2 class="view-title">${esc(v.title)}</h2>${windowPicture(v, id)}${largestItems(v, id)}${messageList(v, id)}</div>`;
}
