/**
 * The page's style (inline, no external URL). At a phone's width every table marked `stack` turns into
 * one card per row, each cell on its own line after its column's name (`data-label`), so no table is
 * wider than the screen and no header overlaps; long words and full texts wrap.
 */

/** Colours chosen for ≥ 3:1 against white (WCAG non-text contrast); text is never drawn on them. */
export const CATEGORY_COLOURS: Record<string, string> = {
  system: '#5b4a9e',
  tools: '#8a5a00',
  injected: '#0b7a63',
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
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--accent)}
:focus-visible{outline:3px solid #ff8c00;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:9}
header.top{padding:12px 16px;border-bottom:1px solid var(--line);display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header.top h1{font-size:18px;margin:0;overflow-wrap:anywhere}
.view-title{overflow-wrap:anywhere}
main{padding:12px 16px;max-width:1240px;margin:0 auto}
section{margin:0 0 24px}
h2{font-size:16px;margin:16px 0 8px}
h3{font-size:15px;margin:12px 0 6px}
.summary{color:var(--muted);margin:4px 0 8px}
svg.bar{display:block;width:100%;height:36px;border:1px solid var(--fg);border-radius:3px}
svg.bar .track{fill:#f2f2f2}
svg.bar .mark{stroke:var(--fg);stroke-width:2;stroke-dasharray:4 3}
svg.marks{display:block;width:100%;height:46px;overflow:visible}
svg.marks text{font-size:12px;fill:var(--fg)}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin-right:6px}
${Object.entries(CATEGORY_COLOURS)
  .map(([c, colour]) => `.k-${c}{background:${colour};fill:${colour}}`)
  .join('')}
.level-ok{color:#1e6b1e}.level-warn{color:#8a5a00}.level-compact{color:#b3261e}.level-block{color:#8b0000;font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
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
td.id{min-width:7ch}
tr.changed td{background:#fff4e5}
tr.made td{background:#eef7f1}
tr.group td{background:#f6f6f6}
.filters{display:flex;gap:12px;flex-wrap:wrap;align-items:end;margin:0 0 8px}
.filters label{display:flex;flex-direction:column;font-size:13px;max-width:100%}
input,select,button{font:inherit;padding:4px 8px;border:1px solid var(--fg);border-radius:3px;background:#fff;color:var(--fg);max-width:100%}
button{cursor:pointer}
.tabs{display:flex;gap:4px;flex-wrap:wrap}
.tabs a[aria-current=page]{font-weight:700}
.pager{display:flex;gap:12px;flex-wrap:wrap;align-items:center;margin:8px 0}
.note{padding:6px 10px;border-left:4px solid var(--accent);background:#eef3fb}.note.bad{border-color:#b3261e;background:#fdeceb}
.chips{display:flex;flex-wrap:wrap;gap:8px;list-style:none;padding:0;margin:8px 0}
.chips li{border:1px solid var(--line);border-radius:12px;padding:2px 10px;background:#fafafa}
pre{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word;background:#f6f6f6;padding:8px;border:1px solid var(--line);max-height:50vh;overflow:auto;max-width:100%;margin:4px 0}
details summary{cursor:pointer}
details.full summary{color:var(--accent)}
.reason{color:var(--muted)}
/* A phone's width: the columns marked \`wide\` go; every \`stack\` table becomes one card per row. */
@media (max-width:640px){
  main{padding:8px}
  header.top{padding:8px}
  td.wide,th.wide{display:none}
  svg.bar{height:28px}
  .long table{table-layout:auto}
  /* The header stays for screen readers, one pixel wide: each cell says its column (data-label). */
  table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
  table.stack thead tr,table.stack thead th{display:block;width:1px;height:1px;padding:0;overflow:hidden;white-space:nowrap}
  table.stack,table.stack tbody,table.stack tr,table.stack td,table.stack th[scope=row]{display:block;width:100%}
  table.stack tr{border:1px solid var(--line);border-radius:4px;margin:0 0 8px;padding:4px 8px}
  table.stack td,table.stack th[scope=row]{border:0;padding:2px 0;text-align:left;white-space:normal}
  table.stack td.wide{display:none}
  table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}
  table.stack td:empty{display:none}
}
`;
