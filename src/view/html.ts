/**
 * HTML as strings: escaping and the page shell (inline CSS and script, no external URL) shared by the
 * CLI's self-contained file and the Worker's pages.
 */

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

/** Colours chosen for ≥ 3:1 against white (WCAG non-text contrast); text is never drawn on them. */
export const CATEGORY_COLOURS: Record<string, string> = {
  system: '#5b4a9e',
  tools: '#8a5a00',
  memory: '#0b7a63',
  summary: '#b3261e',
  text: '#1f5fbf',
  reasoning: '#7a3e9d',
  'tool-call': '#a14a00',
  'tool-result': '#4d6b1f',
  image: '#6b6b6b',
  'pass-through': '#3d5a80',
};

export const PAGE_CSS = `
:root{color-scheme:light;--fg:#1a1a1a;--muted:#4a4a4a;--line:#c8c8c8;--bg:#fff;--accent:#1f5fbf}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid #ff8c00;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:9}
header.top{padding:12px 16px;border-bottom:1px solid var(--line);display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header.top h1{font-size:18px;margin:0;overflow-wrap:anywhere}
.view-title{overflow-wrap:anywhere}
main{padding:12px 16px;max-width:1240px;margin:0 auto}
section{margin:0 0 24px}
h2{font-size:16px;margin:16px 0 8px}
.summary{color:var(--muted);margin:4px 0 8px}
.bar{position:relative;display:flex;height:36px;border:1px solid var(--fg);border-radius:3px;overflow:visible;background:#f2f2f2}
.bar .seg{height:100%;min-width:1px}
.bar .mark{position:absolute;top:-6px;bottom:-6px;width:0;border-left:2px dashed var(--fg)}
.bar .mark span{position:absolute;left:4px;font-size:12px;line-height:14px;white-space:nowrap;color:var(--fg)}
.bar .mark-end span{left:auto;right:4px}
.bar .mark-warn span{top:-46px}.bar .mark-compact span{top:-32px}.bar .mark-block span{top:-18px}
.marks{height:46px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:6px}
${Object.entries(CATEGORY_COLOURS)
  .map(([c, colour]) => `.k-${c}{background:${colour}}`)
  .join('')}
.level-ok{color:#1e6b1e}.level-warn{color:#8a5a00}.level-compact{color:#b3261e}.level-block{color:#8b0000;font-weight:700}
.scroll{overflow-x:auto}
/* Long lists (a 1,000-message session): tables of CHUNK_ROWS rows with fixed columns, each laid out only
   when scrolled near (one content-visibility box per chunk: a single table would be laid out whole). */
.long table{table-layout:fixed}.long th.num{width:6em}.long th.id{width:10em}.long th.preview{width:38%}
.chunk{content-visibility:auto;contain-intrinsic-size:auto 3000px}
.chunk+.chunk thead th{font-weight:400;color:var(--muted);font-size:13px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.preview{color:var(--muted);word-break:break-word}
td code,td.id{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;word-break:break-all}
tr.changed td{background:#fff4e5}
.filters{display:flex;gap:12px;flex-wrap:wrap;align-items:end;margin:0 0 8px}
.filters label{display:flex;flex-direction:column;font-size:13px}
input,select,button{font:inherit;padding:4px 8px;border:1px solid var(--fg);border-radius:3px;background:#fff;color:var(--fg)}
button{cursor:pointer}
.tabs{display:flex;gap:4px;flex-wrap:wrap}
.tabs a[aria-current=page]{font-weight:700}
.note{padding:6px 10px;border-left:4px solid var(--accent);background:#eef3fb}.note.bad{border-color:#b3261e;background:#fdeceb}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:8px;border:1px solid var(--line);max-height:50vh;overflow:auto}
details summary{cursor:pointer}
/* A phone's width: the columns marked \`wide\` (and previews) go; an id someone taps to open stays. */
@media (max-width:640px){
  main{padding:8px}
  td.preview,th.preview,td.wide,th.wide{display:none}
  .bar{height:28px}
}
`;

/**
 * Filters the message list by kind and text; runs without network and degrades to the full list.
 * `ctxkitFilters(root)` is global so the Worker's page can wire the filters of a view it loads.
 */
export const PAGE_SCRIPT = `
window.ctxkitFilters=function(root){root.querySelectorAll('[data-filter-for]').forEach(function(form){
  var list=document.getElementById(form.getAttribute('data-filter-for'));
  if(!list)return;
  var q=form.querySelector('input[type=search]'),k=form.querySelector('select'),out=form.querySelector('output');
  function run(){
    var text=(q&&q.value||'').toLowerCase(),kind=k?k.value:'',shown=0,total=0;
    list.querySelectorAll('tbody').forEach(function(body){
      var rows=body.rows,here=0;
      for(var i=0;i<rows.length;i++){var r=rows[i];
        var ok=(!kind||r.getAttribute('data-kind')===kind)&&(!text||r.textContent.toLowerCase().indexOf(text)>=0);
        r.hidden=!ok;if(ok)here++;}
      var chunk=body.closest('.chunk');if(chunk)chunk.hidden=here===0;
      shown+=here;total+=rows.length;});
    if(out)out.textContent=shown+' of '+total+' shown';
  }
  if(q)q.addEventListener('input',run);if(k)k.addEventListener('change',run);
  form.addEventListener('submit',function(e){e.preventDefault();run();});
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
      `<div class="chunk"><table aria-label="${esc(name)}">${head}<tbody>${rows.slice(i, last).join('')}</tbody></table></div>`,
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
