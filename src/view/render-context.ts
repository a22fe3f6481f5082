/**
 * A context view as HTML: the window as a bar by category against usable input with the warn, compact and
 * block marks, a legend table with the same numbers, the largest items, and every part of the prompt in
 * order — system prompt, injected blocks, tool schemas, then the messages — each with its tokens and its
 * full text on demand.
 */
import { CATEGORY_LABELS, type ContextView, type MessageRow } from './context-model.ts';
import { fullText } from './full-text.ts';
import { chunkedTable, esc, fmt, pct } from './html.ts';

/**
 * The window as a bar, drawn in SVG with lengths in percent of its width: the segments by category,
 * the warn/compact/block lines, their labels above (stacked, and right-aligned near the end so that no
 * label widens the page). No `style` attribute: a strict content security policy allows it.
 */
function windowPicture(v: ContextView, id: string): string {
  const { budget } = v;
  const scale = Math.max(budget.usable, v.tokens, v.counted, 1);
  const used = v.counted === 0 ? 0 : Math.min(1, v.tokens / scale);
  let x = 0;
  const segs = v.segments
    .map((s) => {
      const width = v.counted === 0 ? 0 : (s.tokens / v.counted) * used * 100;
      const rect = `<rect class="k-${s.category}" x="${x.toFixed(3)}%" y="0" width="${width.toFixed(3)}%" height="100%"><title>${esc(`${CATEGORY_LABELS[s.category]}: ${fmt(s.tokens)} tokens`)}</title></rect>`;
      x += width;
      return rect;
    })
    .join('');
  const marks = (['warn', 'compact', 'block'] as const).map((name, i) => {
    const at =
      ((name === 'warn' ? budget.warning : name === 'compact' ? budget.autoCompact : budget.blocking) /
        scale) *
      100;
    const end = at > 60;
    return {
      line: `<line class="mark" x1="${at.toFixed(3)}%" x2="${at.toFixed(3)}%" y1="0" y2="100%"></line>`,
      label: `<text x="${at.toFixed(3)}%" y="${12 + i * 14}" dx="${end ? -4 : 4}" text-anchor="${end ? 'end' : 'start'}">${name}</text>`,
    };
  });
  const described = v.segments.map((s) => `${CATEGORY_LABELS[s.category]} ${fmt(s.tokens)}`).join(', ');
  const label = `${fmt(v.tokens)} of ${fmt(budget.usable)} usable tokens (${pct(v.tokens, budget.usable)}), level ${v.level}: ${described}. Warn at ${fmt(budget.warning)}, compact at ${fmt(budget.autoCompact)}, block at ${fmt(budget.blocking)}.`;
  const legend = v.segments
    .map(
      (s) =>
        `<tr><th scope="row"><span class="swatch k-${s.category}" aria-hidden="true"></span>${esc(CATEGORY_LABELS[s.category])}</th><td class="num" data-label="items">${fmt(s.items)}</td><td class="num" data-label="tokens" data-tokens="${s.category}">${fmt(s.tokens)}</td><td class="num" data-label="of usable">${pct(s.tokens, budget.usable)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="${id}-window">
<h2 id="${id}-window">The window</h2>
<p class="summary"><strong>${fmt(v.tokens)}</strong> tokens of ${fmt(budget.usable)} usable (window ${fmt(budget.window)}) · ${pct(v.tokens, budget.usable)} · level <strong class="level-${esc(v.level)}">${esc(v.level)}</strong>${v.tokens !== v.counted ? ` · every row counted: ${fmt(v.counted)}${v.parts.some((r) => r.category !== 'injected') ? ' (with the system prompt and tool schemas)' : ''}` : ''}</p>
<svg class="marks" aria-hidden="true">${marks.map((m) => m.label).join('')}</svg>
<svg class="bar" role="img" aria-label="${esc(label)}"><rect class="track" x="0" y="0" width="100%" height="100%"></rect>${segs}${marks.map((m) => m.line).join('')}</svg>
<div class="scroll"><table aria-label="Tokens by category"><thead><tr><th scope="col">category</th><th scope="col" class="num">items</th><th scope="col" class="num">tokens</th><th scope="col" class="num">of usable</th></tr></thead>
<tbody>${legend}</tbody></table></div>
<p class="summary">Levels: warn ≥ ${fmt(budget.warning)}, compact ≥ ${fmt(budget.autoCompact)}, block ≥ ${fmt(budget.blocking)}.</p>
</section>`;
}

/** The anchor id of a row in the list: a message by its position, a prompt part by its id. */
const anchorOf = (r: MessageRow, id: string) =>
  r.index !== undefined ? `${id}-m-${r.index}` : `${id}-p-${r.id.replace(/[^\w-]/g, '_')}`;

/** What the number column shows: a message's position, a prompt part's place. */
const numberOf = (r: MessageRow) => (r.index !== undefined ? String(r.index + 1) : '—');

function row(r: MessageRow, id: string, anchor: boolean): string {
  // The list's row is the anchor; the largest items link to it from their number (shown at any width).
  const target = anchorOf(r, id);
  const name = r.index !== undefined ? `message ${r.index + 1}` : r.label;
  const n = anchor
    ? `<td class="num" data-label="#">${numberOf(r)}</td>`
    : `<td class="num" data-label="#"><a href="#${esc(target)}" aria-label="${esc(`${name} in the list`)}">${numberOf(r)}</a></td>`;
  const by = r.ctxkit ? ' · <span class="summary">added by ctxkit</span>' : '';
  const state = [
    r.index === undefined ? 'prompt' : 'message',
    r.ctxkit ? 'ctxkit' : '',
    r.change ? 'changed' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const text = anchor ? fullText(r.text, r.tokens, r.chars) : '';
  return `<tr data-kind="${r.category}" data-state="${state}"${anchor ? ` id="${esc(target)}"` : ''}${r.change ? ' class="changed"' : ''}>${n}<td class="id wide">${esc(r.id)}</td><td data-label="message">${esc(r.label)}${by}</td><td data-label="kind"><span class="swatch k-${r.category}" aria-hidden="true"></span>${esc(CATEGORY_LABELS[r.category])}${r.change ? ` · <strong>${esc(r.change)}</strong>` : ''}</td><td class="num" data-label="tokens">${fmt(r.tokens)}</td><td class="preview" data-label="content">${esc(r.preview)}${text}</td></tr>`;
}

const HEAD =
  '<thead><tr><th scope="col" class="num">#</th><th scope="col" class="id wide">id</th><th scope="col">message</th><th scope="col">kind</th><th scope="col" class="num">tokens</th><th scope="col" class="preview">content</th></tr></thead>';

function largestItems(v: ContextView, id: string): string {
  return `<section aria-labelledby="${id}-largest">
<h2 id="${id}-largest">Largest items</h2>
<div class="scroll"><table class="stack" aria-label="Largest items">${HEAD}<tbody>${v.largest.map((r) => row(r, id, false)).join('')}</tbody></table></div>
</section>`;
}

function messageList(v: ContextView, id: string): string {
  const kinds = [...new Set([...v.parts, ...v.rows].map((r) => r.category))];
  const parts = v.parts.length > 0 ? `${fmt(v.parts.length)} prompt parts and ` : '';
  return `<section aria-labelledby="${id}-messages">
<h2 id="${id}-messages">Messages (${fmt(v.rows.length)})</h2>
<p class="summary">In the order the model reads them: ${parts}${fmt(v.rows.length)} messages. Open a row’s “full text” to read it whole.</p>
<form class="filters" data-filter-for="${id}-list" role="search" aria-label="Filter messages">
<label>Search<input type="search" name="q" autocomplete="off"></label>
<label>Kind<select name="kind"><option value="">all</option>${kinds.map((k) => `<option value="${esc(k)}">${esc(CATEGORY_LABELS[k])}</option>`).join('')}</select></label>
<label>Show<select name="state"><option value="">everything</option><option value="prompt">the prompt’s parts</option><option value="message">messages</option><option value="ctxkit">added by ctxkit</option><option value="changed">changed</option></select></label>
<output aria-live="polite"></output>
</form>
${chunkedTable(
  `${id}-list`,
  'The prompt in order',
  HEAD,
  [...v.parts, ...v.rows].map((r) => row(r, id, true)),
)}
</section>`;
}

/** The three parts of a context view; `id` prefixes element ids so two views fit one page. */
export function renderContextView(v: ContextView, id = 'ctx'): string {
  return `<div class="context-view" id="${esc(id)}"><h2 class="view-title">${esc(v.title)}</h2>${windowPicture(v, id)}${largestItems(v, id)}${messageList(v, id)}</div>`;
}
