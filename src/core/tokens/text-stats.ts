/** Small, allocation-free text measures shared by the estimators. */

/** Number of Unicode code points (PHP `mb_strlen`, Python `len`, Go rune count). */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--; // low surrogate: second half of a pair
  }
  return n;
}

/** UTF-8 byte length (Go `len`, PHP `strlen`), without allocating. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Counts of ASCII and non-ASCII code points. */
export function asciiSplit(text: string): { ascii: number; nonAscii: number } {
  let ascii = 0;
  let nonAscii = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else if (c < 0xdc00 || c > 0xdfff) nonAscii++;
  }
  return { ascii, nonAscii };
}
