/**
 * The Porter (1980) stemmer, as SQLite's FTS5 `porter` tokenizer applies it: ASCII tokens of 3 to
 * 64 characters are stemmed (digits count as consonants), anything else is kept as it is. The in-memory store and the query side use it, so that both sides of a match agree with FTS5.
 */

const isVowelAt = (w: string, i: number): boolean => {
  const c = w[i]!;
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return true;
  return c === 'y' && i > 0 && !isVowelAt(w, i - 1);
};

/** m: the number of VC sequences in `w` (its "measure"). */
function measure(w: string): number {
  let m = 0;
  let i = 0;
  const n = w.length;
  while (i < n && !isVowelAt(w, i)) i++;
  while (i < n) {
    while (i < n && isVowelAt(w, i)) i++;
    if (i >= n) break;
    while (i < n && !isVowelAt(w, i)) i++;
    m++;
  }
  return m;
}

const hasVowel = (w: string): boolean => {
  for (let i = 0; i < w.length; i++) if (isVowelAt(w, i)) return true;
  return false;
};

const endsDoubleConsonant = (w: string): boolean =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && !isVowelAt(w, w.length - 1);

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string): boolean => {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1]!;
  return !isVowelAt(w, n - 1) && isVowelAt(w, n - 2) && !isVowelAt(w, n - 3) && !'wxy'.includes(last);
};

/** Replaces the first matching suffix when the remaining stem's measure passes `minM`. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], minM: number): string {
  for (const [suffix, repl] of rules) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    return measure(stem) > minM ? stem + repl : w;
  }
  return w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];

const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
];

/** Sorted longest first, so `ement` wins over `ment` and `ent`. */
const STEP2_SORTED = [...STEP2].sort((a, b) => b[0].length - a[0].length);
const STEP3_SORTED = [...STEP3].sort((a, b) => b[0].length - a[0].length);
const STEP4_SORTED = [...STEP4].sort((a, b) => b.length - a.length);

/** The Porter stem of a lower-case token; tokens that are not ASCII or not 3–64 long come back unchanged. */
export function porterStem(word: string): string {
  if (word.length < 3 || word.length > 64 || !/^[\x00-\x7f]+$/.test(word)) return word;
  let w = word;
  // Step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('ss')) {
    // unchanged
  } else if (w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += 'e';
  }
  // Step 1c
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  // Steps 2 and 3
  w = replaceSuffix(w, STEP2_SORTED, 0);
  w = replaceSuffix(w, STEP3_SORTED, 0);
  // Step 4
  for (const suffix of STEP4_SORTED) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (measure(stem) > 1 && (suffix !== 'ion' || /[st]$/.test(stem))) w = stem;
    break;
  }
  // Step 5a
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  // Step 5b
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
