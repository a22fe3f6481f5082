/**
 * HTML as strings: escaping and the page shell (inline CSS and script, no external URL) shared by the
 * CLI's self-contained file and the Worker's pages.
 */
import { PAGE_CSS } from './page-css.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  // `/` too: text that quotes a URL then holds no literal `https://` a viewer could turn into a request.
  '/': '&#47;',
};

/** Escapes text for an element body or a quoted attribute. */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"'/]/g, (c) => ESCAPES[c]!);
}

/** One formatter for every figure: `toLocaleString` builds one per call (~20 µs; 1,000 rows of a page). */
const NUMBER = new Intl.NumberFormat('en-US');
export const fmt = (n: number): string => NUMBER.format(n);
export const pct = (n: number, of: number): string => `${of === 0 ? '0.0' : ((n / of) * 100).toFixed(1)}%`;

export { CATEGORY_COLOURS, PAGE_CSS } from './page-css.ts';

/**
 * Filters a list by kind (`data-kind`), by state (`data-state`, a space-separated list: `sent`,
 * `changed`, `unsent`…) and by text; the form's own values apply at load, so a list can open on part of
 * itself ("what this call changed") with the rest a choice away. No network; without the script every
 * row shows. `ctxkitFilters(root)` is global so the Worker's page can wire the filters of a view it loads.
 */
export const PAGE_SCRIPT = `
window.ctxkitFilters=function(root){root.querySelectorAll('[data-filter-for]').forEach(function(form){
  var list=document.getElementById(form.getAttribute('data-filter-for'));
  if(!list)return;
  var q=form.querySelector('input[type=search]'),k=form.querySelector('select[name=kind]'),
    st=form.querySelector('select[name=state]'),out=form.querySelector('output');
  function run(){
    var text=(q&&q.value||'').toLowerCase(),kind=k?k.value:'',state=st?st.value:'',shown=0,total=0;
    list.querySelectorAll('tbody').forEach(function(body){
      var rows=body.rows,here=0;
      for(var i=0;i<rows.length;i++){var r=rows[i];
        var ok=(!kind||r.getAttribute('data-kind')===kind)&&
          (!state||(' '+(r.getAttribute('data-state')||'')+' ').indexOf(' '+state+' ')>=0)&&
          (!text||r.textContent.toLowerCase().indexOf(text)>=0);
        r.hidden=!ok;if(ok)here++;}
      var chunk=body.closest('.chunk');if(chunk)chunk.hidden=here===0;
      shown+=here;total+=rows.length;});
    if(out)out.textContent=shown+' of '+total+' shown';
  }
  if(q)q.addEventListener('input',run);if(k)k.addEventListener('change',run);if(st)st.addEventListener('change',run);
  form.addEventListener('submit',function(e){e.preventDefault();run();});
  if((st&&st.value)||(k&&k.value)||(q&&q.value))run();
});};
window.ctxkitFilters(document);
`;

/** Rows per table of a long list (`chunkedTable`). */
export const CHUNK_ROWS = 100;

/**
 * A long list as consecutive tables of `CHUNK_ROWS` rows, each in its own `content-visibility: auto`
 * box, so a browser lays out only the chunks near the viewport (a 1,000-row table is otherwise laid
 * out whole, ~0.5 s on a loaded machine). Each table repeats the header and is labelled with its range;
 * `id` is on the wrapper (the filter script and links find the rows under it).
 */
export function chunkedTable(id: string, label: string, head: string, rows: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < rows.length || i === 0; i += CHUNK_ROWS) {
    const last = Math.min(rows.length, i + CHUNK_ROWS);
    const name =
      rows.length > CHUNK_ROWS ? `${label}, ${fmt(i + 1)}–${fmt(last)} of ${fmt(rows.length)}` : label;
    parts.push(
      `<div class="chunk"><table class="stack" aria-label="${esc(name)}">${head}<tbody>${rows.slice(i, last).join('')}</tbody></table></div>`,
    );
  }
  return `<div class="scroll long" id="${esc(id)}">${parts.join('')}</div>`;
}

export interface PageOptions {
  title: string;
  body: string;
  /** Extra script (the Worker's sign-in); inline, never fetched from elsewhere. */
  script?: string;
  header?: string;
}

export function renderPage(o: PageOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(o.title)}</title>
<style>${PAGE_CSS}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><h1>${esc(o.title)}</h1>${o.header ?? ''}</header>
<main id="main" tabindex="-1">${o.body}</main>
<script>${PAGE_SCRIPT}${o.script ?? ''}</script>
</body></html>
`;
}
