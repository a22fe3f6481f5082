/**
 * The scans `extractReferences` reads a text with: paths, file names with a known extension and
 * identifiers, each found by one pass over character codes rather than by a regular expression. Each
 * implements a regular expression exactly (the tests compare them on generated text, edge cases and
 * the real trajectories) and slices only what it keeps: a compaction reads a hundred messages it has
 * not seen, ~100,000 characters, and the regular expressions read every word as a string and tested it
 * again.
 */

/** Extensions of a bare file name (`mix.exs`, `README.md`). */
const EXTENSIONS: ReadonlySet<string> = new Set(
  'ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|mdx|py|pyi|go|rs|rb|ex|exs|eex|heex|erl|java|kt|kts|scala|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|ps1|sql|yml|yaml|toml|ini|cfg|conf|env|lock|txt|csv|tsv|xml|html|htm|css|scss|sass|less|vue|svelte|proto|graphql|gql|tf|lua|dart|r|jl|pl|pm|zig|nim|ml|mli|hs|elm|clj|cljs|edn|gradle|properties|dockerfile|mk|cmake|ipynb|pdf|png|jpg|svg|wasm|log|patch|diff'.split(
    '|',
  ),
);
/** The longest of `EXTENSIONS`. */
const EXTENSION_MAX = Math.max(...[...EXTENSIONS].map((x) => x.length));

/** Per ASCII code, bits: a word character `[A-Za-z0-9_]`, one of `.+-`, `@`, `~`. */
const WORD = 1;
const DOT_PLUS_DASH = 2;
const AT = 4;
const TILDE = 8;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/\w/.test(ch)) CLASS[c] = WORD;
  else if (ch === '.' || ch === '+' || ch === '-') CLASS[c] = DOT_PLUS_DASH;
  else if (ch === '@') CLASS[c] = AT;
  else if (ch === '~') CLASS[c] = TILDE;
}
const DOT = 46;
const SLASH = 47;
const TILDE_CODE = 126;
const UNDERSCORE = 95;
const is = (c: number, bits: number) => c < 128 && (CLASS[c]! & bits) !== 0;
/** `[A-Za-z0-9_]`. */
const isWord = (c: number) => is(c, WORD);
/** `[A-Za-z0-9_.+-]`: a file name's run. */
const inName = (c: number) => is(c, WORD | DOT_PLUS_DASH);
/** `[A-Za-z0-9_@.+-]`: a path segment's character. */
const inSegment = (c: number) => is(c, WORD | DOT_PLUS_DASH | AT);
/** `[A-Za-z0-9_@.+~-]`: what no path starts after. */
const beforePath = (c: number) => is(c, WORD | DOT_PLUS_DASH | AT | TILDE);

/**
 * The end of the segments from `q`: `(?:[A-Za-z0-9_@.+-]+\/)+[A-Za-z0-9_@.+-]*` matched greedily (each
 * segment a maximal run followed by `/`, then the run after the last), or -1 without a segment.
 */
function segmentsEnd(text: string, q: number): number {
  const n = text.length;
  let segments = 0;
  for (;;) {
    let r = q;
    while (r < n && inSegment(text.charCodeAt(r))) r++;
    if (r > q && r < n && text.charCodeAt(r) === SLASH) {
      segments++;
      q = r + 1;
      continue;
    }
    return segments === 0 ? -1 : r;
  }
}

/**
 * Calls `add` with each match of
 * `/(?<![A-Za-z0-9_@.+~-])(?:~|\.{1,2})?\/?(?:[A-Za-z0-9_@.+-]+\/)+[A-Za-z0-9_@.+-]*\/g`, in order: from
 * where a run of path characters starts, an optional `~` and `/` (the dots of `./`, `../` are segment
 * characters already), then the segments.
 */
export function eachPath(text: string, add: (match: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!(c === SLASH || beforePath(c)) || (i > 0 && beforePath(text.charCodeAt(i - 1)))) {
      i++;
      continue;
    }
    let q = i;
    if (c === TILDE_CODE) q = text.charCodeAt(i + 1) === SLASH ? i + 2 : i + 1;
    else if (c === SLASH) q = i + 1;
    const end = segmentsEnd(text, q);
    if (end < 0) {
      i++;
      continue;
    }
    add(text.slice(i, end));
    i = end;
  }
}

/**
 * Calls `add` with each match of
 * `/(?<![A-Za-z0-9_.+-])[A-Za-z0-9_][A-Za-z0-9_.+-]*\.(?:<EXTENSIONS>)\b/gi`, in order: at most one per
 * run of `[A-Za-z0-9_.+-]` (the look-behind), from the run's start when it is a word character, up to
 * its last `.` followed by a known extension that ends a run of word characters.
 */
export function eachFileName(text: string, add: (name: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!inName(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let dots = 0;
    while (i < n && inName(text.charCodeAt(i))) if (text.charCodeAt(i++) === DOT) dots++;
    if (dots === 0 || !isWord(text.charCodeAt(start))) continue;
    // The rightmost `.` (after the first character) followed by a known extension.
    for (let d = i - 1; d > start; d--) {
      if (text.charCodeAt(d) !== DOT) continue;
      let j = d + 1;
      while (j < i && isWord(text.charCodeAt(j))) j++;
      if (j > d + 1 && j - d - 1 <= EXTENSION_MAX && EXTENSIONS.has(text.slice(d + 1, j).toLowerCase())) {
        add(text.slice(start, j));
        break;
      }
    }
  }
}

/**
 * Calls `add` with each match of `/\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g` (a whole word of 6+ word
 * characters that does not start with a digit) holding a letter and a snake (`a_b`) or camel (`aB`)
 * step, in order.
 */
export function eachIdentifier(text: string, add: (name: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isWord(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let letter = false;
    let step = false;
    // The two characters before the current one (0 before the word).
    let p1 = 0;
    let p2 = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (!isWord(c)) break;
      const lower = c >= 97 && c <= 122;
      const upper = c >= 65 && c <= 90;
      if (lower || upper) letter = true;
      if (!step) {
        // camel: a lower-case letter then an upper-case one; snake: alphanumeric, `_`, alphanumeric.
        if (upper && p1 >= 97 && p1 <= 122) step = true;
        else if (c !== UNDERSCORE && p1 === UNDERSCORE && p2 !== 0 && p2 !== UNDERSCORE) step = true;
      }
      p2 = p1;
      p1 = c;
    }
    const first = text.charCodeAt(start);
    if (i - start >= 6 && !(first >= 48 && first <= 57) && letter && step) add(text.slice(start, i));
  }
}
