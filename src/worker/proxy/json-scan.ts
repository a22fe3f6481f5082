/**
 * Where the elements of a top-level array field lie in a JSON text, found without parsing it again:
 * strings are skipped with the runtime's `indexOf` (most of a conversation's bytes are inside
 * strings), structure is followed character by character. Run only on a text that `JSON.parse`
 * accepted; anything unexpected (a duplicate field, the field not an array) gives `undefined`.
 */

export interface ArrayLayout {
  /** Offset of the array's `[`. */
  start: number;
  /** Offset just past each element. */
  ends: number[];
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Past the string whose opening quote is at `i`; -1 when it does not end. */
function skipString(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    for (let b = q - 1; b > i && text.charCodeAt(b) === 92; b--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Past the JSON value that starts at `i` (after any white space); -1 when malformed. */
export function skipValue(text: string, i: number): number {
  const at = skipSpace(text, i);
  const c = text.charCodeAt(at);
  if (c === 34) return skipString(text, at);
  if (c === 123 || c === 91) {
    let depth = 0;
    let j = at;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (d === 34) {
        j = skipString(text, j);
        if (j < 0) return -1;
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return -1;
  }
  let j = at;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) break;
    j++;
  }
  return j > at ? j : -1;
}

/** The layout of the array in the top-level field `field` of the JSON object `text`. */
export function scanArrayField(text: string, field: string): ArrayLayout | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123) return undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 125) return undefined;
  let found: ArrayLayout | undefined;
  for (;;) {
    if (text.charCodeAt(i) !== 34) return undefined;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return undefined;
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 58) return undefined;
    i = skipSpace(text, i + 1);
    if (key === field) {
      // JSON.parse keeps the last of two equal keys: do not guess which one the layout is of.
      if (found || text.charCodeAt(i) !== 91) return undefined;
      const layout: ArrayLayout = { start: i, ends: [] };
      let j = skipSpace(text, i + 1);
      if (text.charCodeAt(j) !== 93)
        for (;;) {
          const end = skipValue(text, j);
          if (end < 0) return undefined;
          layout.ends.push(end);
          j = skipSpace(text, end);
          if (text.charCodeAt(j) === 44) {
            j++;
            continue;
          }
          if (text.charCodeAt(j) !== 93) return undefined;
          break;
        }
      found = layout;
      i = j + 1;
    } else {
      i = skipValue(text, i);
      if (i < 0) return undefined;
    }
    i = skipSpace(text, i);
    const d = text.charCodeAt(i);
    if (d === 125) return found;
    if (d !== 44) return undefined;
    i = skipSpace(text, i + 1);
  }
}

/**
 * How many leading elements of the array in `text` (laid out as `layout`) are, character for
 * character, those of the array in `known` (laid out as `knownLayout`).
 */
export function sameLeading(
  known: string,
  knownLayout: ArrayLayout,
  text: string,
  layout: ArrayLayout,
): number {
  // Equality of two slices is a native comparison (startsWith at an offset is far slower).
  const same = (k: number) =>
    layout.ends[k - 1]! - layout.start === knownLayout.ends[k - 1]! - knownLayout.start &&
    text.slice(layout.start, layout.ends[k - 1]) === known.slice(knownLayout.start, knownLayout.ends[k - 1]);
  // The leading run of equal elements is what the longest equal prefix of the array text covers;
  // most often all the known ones (the client appended to its history).
  const most = Math.min(knownLayout.ends.length, layout.ends.length);
  if (most === 0 || same(most)) return most;
  let lo = 0;
  let hi = most - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (same(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
