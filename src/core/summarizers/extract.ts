/**
 * Extractors of the deterministic summarizer: sentences, decision and constraint sentences, file
 * paths, identifiers and the key argument of a tool call. Pure and deterministic.
 */
import type { JsonValue } from '../messages/types.ts';

/** Whitespace collapsed to single spaces, trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Clips to `n` code points, adding `…` when cut. */
export function clip(text: string, n: number): string {
  if (n < 1) {
    const all = Array.from(text);
    return all.length <= n ? text : `${all.slice(0, n - 1).join('')}…`;
  }
  if (text.length <= n) return text; // n code units hold at most n code points
  // Past 2n code units there are more than n code points, and the first n - 1 lie within them.
  const cps = Array.from(text.length > 2 * n ? text.slice(0, 2 * n) : text);
  return text.length <= 2 * n && cps.length <= n ? text : `${cps.slice(0, n - 1).join('')}…`;
}

/**
 * `clip(oneLine(text), n)`, reading only the head of a long text: `oneLine` of a prefix is a prefix of
 * `oneLine` of the whole (whitespace runs collapse to one space wherever they are cut), and past 2n code
 * units the clip keeps the same n − 1 code points.
 */
export function clipLine(text: string, n: number): string {
  if (n >= 1 && text.length > 8 * n) {
    const head = oneLine(text.slice(0, 4 * n));
    if (head.length > 2 * n) return clip(head, n);
  }
  return clip(oneLine(text), n);
}

/** Sentences of a text: split on sentence punctuation and line breaks; code fences are skipped. */
export function sentences(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, ' ');
  const out: string[] = [];
  for (const line of withoutCode.split(/\n+/)) {
    for (const s of line.split(/(?<=[.!?。！？])\s+/)) {
      const t = oneLine(s.replace(/^[-*•\d.)\s]+/, ''));
      if (t.length >= 8) out.push(t);
    }
  }
  return out;
}

const DECISION =
  /\b(decided|decide to|decision|will use|i'll use|we'll use|let's use|going to use|instead of|chose|choose|opted|switch(ed)? to|the (issue|problem|bug|cause) (is|was)|root cause|based on|should use|we should|i will|plan is|approach|fix(ed)? (it|this|the) by|because)\b/i;
const CONSTRAINT =
  /\b(must|never|always|don't|do not|dont|shouldn't|should not|make sure|avoid|only use|not allowed|required?)\b/i;

/**
 * Whether a sentence names something a reader can act on: a code span, a path or file name, an
 * identifier or a number.
 */
export function namesSomething(s: string): boolean {
  // A code span, a number, a file name or path, camelCase, snake_case or a call: the shapes
  // `filePaths` and `identifiers` find, tested without listing them.
  return /`[^`]+`|\d|\w\.[A-Za-z]{1,5}\b|\w\/\w|[a-z][A-Z]|[A-Za-z]_[A-Za-z]|\w\(/.test(s);
}

/** Words that carry no decision of their own: function words, the decision phrases, praise. */
const EMPTY_WORDS = new Set(
  (
    "the and for but not are was were has have had will would could should can may must let let's try use " +
    'using now next here there just also decided decide chose switch instead because based plan approach ' +
    'issue problem cause fix fixed way thing different ready solid good great fine done correct clear ' +
    'looking better expected with from about what this that these those its our your their you they'
  ).split(' '),
);

/**
 * Filler a decision pattern catches: a lead-in to a block that follows ("Let me fix it by adding an
 * alias:"), a sentence that points back instead of saying ("I'll use that alias in the next edits."),
 * or one with fewer than two words of its own ("The plan is ready."). A sentence that names
 * something (`namesSomething`) is never filler.
 */
export function isFiller(s: string): boolean {
  if (namesSomething(s)) return false;
  if (/:\s*$/.test(s)) return true;
  // A demonstrative as the object ("use that alias", "with this approach"), not "the issue is that …".
  if (
    /\b(?:use|using|with|on|in|to|for|of|from|by|add|adding|try|do|into|keep|apply)\s+(?:that|this|these|those)\s+[a-z]+/i.test(
      s,
    )
  )
    return true;
  const words = s.toLowerCase().match(/[a-z][a-z']{2,}/g) ?? [];
  return words.filter((w) => !EMPTY_WORDS.has(w)).length < 2;
}

/** Sentences that state a decision, a cause or a choice, filler left out (`isFiller`). */
export function decisionSentences(text: string): string[] {
  return sentences(text).filter((s) => DECISION.test(s) && !isFiller(s));
}

export function constraintSentences(text: string): string[] {
  return sentences(text).filter((s) => CONSTRAINT.test(s) || /(不要|必须|总是|永远不|别)/.test(s));
}

/**
 * A harness's notice in the user's name rather than a request: an interruption (`[Request interrupted
 * by user]`), or text that opens with a tag block (`<task-notification>…`, an observation
 * `<returncode>…`, a `<system-reminder>`). The caller keeps the first request whatever its form.
 */
export function harnessNotice(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('[Request interrupted') || /^<([a-z][\w-]*)[^>]*>[\s\S]*?<\/\1>/i.test(t);
}

const NOT_FILES = new Set(['e.g', 'i.e', 'etc', 'vs', 'a.m', 'p.m', 'u.s']);

/** Extensions accepted for a bare file name (no directory); paths with a `/` accept any extension. */
const EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonl md mdx txt py pyi rb go rs java kt kts swift c h cc cpp cxx hpp cs php ' +
    'html htm css scss sass less vue svelte astro yaml yml toml ini cfg conf env lock sql sh bash zsh fish ps1 bat cmd ' +
    'xml csv tsv log pdf png jpg jpeg gif svg webp ico mp3 mp4 wav zip tar gz tgz bz2 xz dockerfile gradle properties ' +
    'proto graphql gql lua r pl pm ex exs erl hs ml scala clj dart ipynb tf hcl nix el vim tex rst adoc org ttf woff ' +
    'woff2 wasm so dll exe bin dat db sqlite sqlite3 patch diff plist lockb mk cmake make in out tmp bak jsonc json5 ' +
    'prisma vue njk hbs ejs pug twig erb jinja j2 tpl csproj sln xcodeproj pbxproj gemspec podspec rake gradle kts zig'
  ).split(' '),
);

/** Folder names that make `<folder>/<word>` a path rather than a pair of words. */
const DIRS = new Set(
  (
    'src lib libs packages apps app test tests spec docs doc bin scripts config configs public assets static ' +
    'internal cmd pkg core utils util server client web ui api components pages routes dist build examples ' +
    'fixtures migrations priv include vendor modules services tools crates plugins home usr etc var tmp opt'
  ).split(' '),
);

/**
 * Text as a reader sees it: a JSON-escaped blob inside a tool output (`…done.\\nImportant: …`) has its
 * `\\n`, `\\r`, `\\t` and `\\"` decoded, so that no extractor reads `nImportant` as a name. Only when
 * the text holds at least two such escapes (a Windows path holds at most one by chance).
 */
export function decodeEscapes(text: string): string {
  const escapes = text.match(/\\[nrt"]/g);
  if (!escapes || escapes.length < 2) return text;
  return text.replace(/\\[nrt]/g, ' ').replace(/\\"/g, '"');
}

/**
 * Encoded data, not a name: a run of 24+ base64 characters mixing upper case, lower case and digits
 * (thinking signatures, inline images, tokens), or 16+ hex digits (hashes, ids).
 */
export function looksEncoded(text: string): boolean {
  for (const m of text.matchAll(/[A-Za-z0-9+=]{24,}/g))
    if (/[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]) && /\d/.test(m[0])) return true;
  return /(?:^|[^A-Za-z0-9])[0-9a-f]{16,}(?:$|[^A-Za-z0-9])/i.test(text) && /\d/.test(text);
}

/**
 * File paths and file names with an extension (`src/a.ts`, `./x/y.py`, `README.md`, `C:\x\y.txt`),
 * in order of appearance, deduplicated. URLs, encoded data (base64, hashes) and word pairs (`and/or`,
 * `toast/banner`) are skipped; version numbers are not file names.
 */
export function filePaths(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const cleaned = decodeEscapes(text).replace(/\bhttps?:\/\/\S+/g, ' ');
  const re =
    /(?:[A-Za-z]:[\\/])?(?:~?\.{0,2}[\\/])?(?:[\w@.+-]+[\\/])*[\w@+-][\w@.+-]*\.[A-Za-z][A-Za-z0-9]{0,9}\b|(?:\.{0,2}\/)?(?:[\w@.+-]+\/){1,}[\w@.+-]+/g;
  for (const m of cleaned.matchAll(re)) {
    let p = m[0].replace(/[.,:;]+$/, '');
    if (p.length < 3 || p.length > 200) continue;
    if (NOT_FILES.has(p.toLowerCase())) continue;
    if (/^\d+(\.\d+)+$/.test(p)) continue;
    const bare = !p.includes('/') && !p.includes('\\');
    const segments = p.split('/').filter((x) => x !== '' && x !== '.' && x !== '..');
    if (!bare && !/\.[A-Za-z]/.test(segments.at(-1) ?? '') && !p.startsWith('/') && !p.startsWith('.')) {
      if (segments.length < 2 || segments.some((x) => x.length < 2) || segments.every((x) => /^\d+$/.test(x)))
        continue;
      if (segments.length === 2 && segments.some((x) => x.length < 3)) continue; // and/or, I/O
      // Two bare words (`toast/banner`, `read/write`) are prose unless the first is a usual folder.
      if (segments.length === 2 && segments.every((x) => /^[A-Za-z]+$/.test(x)) && !DIRS.has(segments[0]!))
        continue;
    }
    if (looksEncoded(p)) continue;
    if (bare && !EXTENSIONS.has(p.slice(p.lastIndexOf('.') + 1).toLowerCase())) continue; // Math.max, console.log
    if (p.startsWith('//')) continue;
    p = p.replace(/\\/g, '/');
    if (!seen.has(p)) {
      seen.add(p);
      out.push(p);
    }
  }
  return out;
}

/**
 * Identifiers worth keeping: `code spans`, calls `name(`, camelCase / PascalCase with an inner capital,
 * snake_case and SCREAMING_CASE with an underscore, `#123` issue numbers and error codes.
 */
export function identifiers(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (s: string) => {
    const t = s.trim();
    if (t.length < 3 || t.length > 80 || seen.has(t) || looksEncoded(t)) return;
    seen.add(t);
    out.push(t);
  };
  const src = decodeEscapes(text);
  for (const m of src.matchAll(/`([^`\n]{2,80})`/g)) add(m[1]!);
  for (const m of src.matchAll(/\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(/g))
    if (/[A-Z_]|\./.test(m[1]!)) add(m[1]!);
  for (const m of src.matchAll(/\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b/g)) add(m[0]);
  for (const m of src.matchAll(/\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b/g)) add(m[0]);
  for (const m of src.matchAll(/(?<![\w#])#\d{1,6}\b|\b[A-Z]{1,4}\d{3,5}\b/g)) add(m[0]);
  return out;
}

const KEY_ARGS = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'file',
  'command',
  'cmd',
  'query',
  'pattern',
  'url',
  'name',
  'target',
  'directory',
  'dir',
];

/** The most telling argument of a tool call (`path`, `command`, `query`…), as one short line. */
export function keyArg(args: JsonValue): string | undefined {
  if (typeof args === 'string') return clipLine(args, 120);
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  for (const k of KEY_ARGS) {
    const v = args[k];
    if (typeof v === 'string' && v.trim() !== '') return clipLine(v, 120);
  }
  for (const v of Object.values(args))
    if (typeof v === 'string' && v.trim() !== '' && v.length <= 120) return oneLine(v);
  return undefined;
}

/** String values of path-like arguments (`path`, `file_path`, `paths[]`…). */
export function pathArgs(args: JsonValue): string[] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (!/path|file|dir/i.test(k)) continue;
    if (typeof v === 'string' && v.trim() !== '' && v.length <= 200 && !/\s{2,}|\n/.test(v))
      out.push(v.trim());
    else if (Array.isArray(v))
      for (const x of v) if (typeof x === 'string' && x.length <= 200) out.push(x.trim());
  }
  return out;
}

/**
 * Files a shell block in an agent's text writes (agents whose actions are fenced bash, such as
 * mini-swe-agent): `sed -i … file`, `> file`, `>> file`, `tee file`; not `/dev/…` or `/tmp/…`.
 */
export function shellWrites(text: string): string[] {
  const out: string[] = [];
  for (const block of text.matchAll(/```(?:bash|sh|shell)?\n([\s\S]*?)```/g)) {
    const code = block[1]!;
    for (const m of code.matchAll(/\bsed\s+-i\S*\s+(?:'[^']*'|"[^"]*"|\S+)(?:\s+-e\s+\S+)*\s+([\w./-]+)/g))
      out.push(m[1]!);
    for (const m of code.matchAll(/(?:>>?|\btee\s+(?:-a\s+)?)\s*([\w./-]+\.[A-Za-z]\w*)\b/g)) out.push(m[1]!);
  }
  return out.filter((p) => !p.startsWith('/dev/') && !p.startsWith('/tmp/'));
}

/** True for tool names that change files. */
export function isWriteTool(name: string): boolean {
  return /edit|write|create|patch|replace|apply|insert|delete|move|rename/i.test(name);
}
