/**
 * Character-class features of a text, extracted in one pass over its UTF-16 code units.
 *
 * Each feature is a count (of characters or of runs) whose token cost is roughly constant for a
 * given tokenizer; a calibrated estimate is the dot product of these counts with fitted weights.
 */
import { unpackBits } from './packed.ts';

/** Names of the features, in the order of the vector that {@link extractTokenFeatures} fills. */
export const TOKEN_FEATURE_NAMES = [
  'words', // runs of Latin letters (ASCII or Latin-extended)
  'wordChars', // letters in those runs
  'longChars', // Σ max(0, length − 6) over words
  'vlongChars', // Σ max(0, length − 10) over words
  'caseSwitches', // camelCase and ACRONYMWord boundaries inside words
  'latinExtWords', // words with Latin-1 / Latin-extended letters (é, ç, ß…)
  'digitRuns',
  'digits',
  'digitGroups', // Σ ceil(length / 3) over digit runs
  'entropyRuns', // long alphanumeric runs that look like hashes or base64
  'entropyChars',
  'mixedChars', // the part of entropyChars not in lower-case hexadecimal runs (base64, mixed case)
  'spaces',
  'spaceRuns', // runs of two or more spaces (indentation, alignment)
  'tabs',
  'newlines',
  'punct', // ASCII punctuation and symbols
  'punctRuns',
  'cyrillic',
  'cyrillicWords',
  'greek',
  'han', // CJK ideographs
  'hanRuns',
  'kana', // Hiragana, Katakana
  'kanaRuns',
  'hangul',
  'hangulWords',
  'cjkPunct', // CJK punctuation, full-width forms
  'arabic', // Arabic, Syriac, Thaana
  'arabicWords',
  'hebrew', // Hebrew, Armenian
  'hebrewWords',
  'indic', // Devanagari, Bengali
  'indicWords',
  'brahmic', // Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam, Sinhala
  'brahmicWords',
  'southeast', // Thai, Lao, Tibetan, Myanmar, Georgian
  'southeastWords',
  'emoji', // pictographs and dingbats, one per code point
  'emojiMods', // variation selector 16, zero-width joiner, skin tones
  'symbols', // other non-ASCII punctuation and symbols (“ ” — … → │)
  'other', // every other code point
  'entropyGroups', // Σ ceil(length / 3) over the digit runs inside entropy runs (BPE splits at each)
  'rareBigrams', // lower-case letter pairs rare in English (non-English words split more)
] as const;

export type TokenFeatureName = (typeof TOKEN_FEATURE_NAMES)[number];
/** Length of the feature vector (= `TOKEN_FEATURE_NAMES.length`). */
export const TOKEN_FEATURE_COUNT = 44;

// Character classes. Letters are 1–3 and alphanumerics 1–4 so that range checks stay cheap.
const SKIP = 0;
const LOWER = 1;
const UPPER = 2;
const LATIN_EXT = 3;
const DIGIT = 4;
const SPACE = 5;
const TAB = 6;
const NEWLINE = 7;
const PUNCT = 8;
const CYRILLIC = 9;
const GREEK = 10;
const HAN = 11;
const KANA = 12;
const HANGUL = 13;
const CJK_PUNCT = 14;
const ARABIC = 15;
const INDIC = 16;
const EMOJI = 17;
const EMOJI_MOD = 18;
const SYMBOL = 19;
const OTHER = 20;
const HEBREW = 21;
const BRAHMIC = 22;
const SOUTHEAST = 23;
const HIGH_SURROGATE = 24;

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  let k = PUNCT;
  if (c >= 97 && c <= 122) k = LOWER;
  else if (c >= 65 && c <= 90) k = UPPER;
  else if (c >= 48 && c <= 57) k = DIGIT;
  else if (c === 32) k = SPACE;
  else if (c === 9) k = TAB;
  else if (c === 10) k = NEWLINE;
  else if (c < 32 || c === 127) k = SKIP; // \r and other controls: \r\n counts as \n
  ASCII_CLASS[c] = k;
}

/**
 * Lower-case letter pairs rarer than 1 in 10,000 in English prose, as a 26 × 26 bit set
 * (index (first − 'a') × 26 + (second − 'a')); `rareBigrams()` in src/cli/tokens/calibration.ts
 * derives it from the corpus's en-prose texts, and a test checks that it still matches.
 */
export const RARE_BIGRAMS =
  'RIUAyOthrayGuGaZ6CgARgz2WuuYb66uvlLgDEdu/767u37rxyMos7Q6CoADJACAoubS4+//vPACEoKJwoqkJhKoGF/u77/bkl5v6+d/v7R87uv/P';
/** The rare pairs indexed by (first & 31) << 5 | (second & 31). */
const RARE = new Uint8Array(1024);
unpackBits(RARE_BIGRAMS, 676).forEach((bit, i) => {
  RARE[(((i / 26) | 0) + 1) * 32 + (i % 26) + 1] = bit;
});

/** Class of a non-ASCII BMP code unit (surrogates are handled by the caller). */
function classify(c: number): number {
  if (c < 0x250) {
    if (c >= 0xc0 && c !== 0xd7 && c !== 0xf7) return LATIN_EXT;
    return c === 0xa0 ? SPACE : SYMBOL;
  }
  if (c < 0x370) return c < 0x300 ? SYMBOL : LATIN_EXT; // spacing modifiers, combining marks
  if (c < 0x400) return GREEK;
  if (c < 0x530) return CYRILLIC;
  if (c < 0x600) return HEBREW; // Armenian, Hebrew
  if (c < 0x900) return ARABIC; // Arabic, Syriac, Thaana, NKo…
  if (c < 0xa00) return INDIC; // Devanagari, Bengali
  if (c < 0xe00) return BRAHMIC;
  if (c < 0x1100) return SOUTHEAST; // Thai, Lao, Tibetan, Myanmar, Georgian
  if (c < 0x1200) return HANGUL; // Hangul Jamo
  if (c < 0x1e00) return OTHER;
  if (c < 0x1f00) return LATIN_EXT; // Latin Extended Additional (Vietnamese)
  if (c < 0x2000) return GREEK;
  if (c < 0x2c00) {
    if (c === 0x200d) return EMOJI_MOD;
    if (c >= 0x2600 && c < 0x27c0) return EMOJI; // misc symbols, dingbats
    if (c >= 0x2b00) return EMOJI; // arrows and stars used as emoji (⬆ ⭐)
    return SYMBOL; // general punctuation, letterlike, arrows, math, box drawing
  }
  if (c < 0x2e80) return OTHER;
  if (c < 0x3000) return HAN; // radicals
  if (c < 0x3040) return CJK_PUNCT;
  if (c < 0x3100) return KANA;
  if (c < 0x3190) return c >= 0x3130 ? HANGUL : OTHER;
  if (c < 0x3400) return c >= 0x31f0 && c < 0x3200 ? KANA : CJK_PUNCT;
  if (c < 0xa000) return HAN;
  if (c < 0xac00) return OTHER;
  if (c < 0xd7b0) return HANGUL;
  if (c < 0xf900) return OTHER; // private use
  if (c < 0xfb00) return HAN; // compatibility ideographs
  if (c < 0xfe00) return ARABIC; // presentation forms
  if (c < 0xfe10) return EMOJI_MOD; // variation selectors
  if (c < 0xff00) return c === 0xfeff ? SKIP : CJK_PUNCT;
  if (c < 0xff66) return CJK_PUNCT; // full-width forms
  if (c < 0xffa0) return KANA; // half-width Katakana
  return OTHER;
}

/** Class of an astral code point given its high surrogate. */
function classifyAstral(high: number, low: number): number {
  if (high === 0xd83c) {
    if (low >= 0xdffb && low <= 0xdfff) return EMOJI_MOD; // skin tones U+1F3FB–1F3FF
    return EMOJI; // pictographs, regional indicators
  }
  if (high === 0xd83d || high === 0xd83e) return EMOJI; // U+1F400–1FBFF
  if (high >= 0xd840 && high <= 0xd87f) return HAN; // planes 2–3 ideographs
  return OTHER;
}

/** Class of every BMP code unit. */
const CLASS = new Uint8Array(0x10000);
CLASS.set(ASCII_CLASS);
for (let c = 128; c < 0x10000; c++)
  CLASS[c] = c >= 0xd800 && c < 0xe000 ? (c < 0xdc00 ? HIGH_SURROGATE : OTHER) : classify(c);

/** Feature index per class for per-character counts, and for counts of runs (−1: none). */
const CHAR_FEATURE = new Int8Array(HIGH_SURROGATE + 1).fill(-1);
const RUN_FEATURE = new Int8Array(HIGH_SURROGATE + 1).fill(-1);
// Numeric indices into TOKEN_FEATURE_NAMES (a test checks them), so that bundles that only
// estimate leave the names out.
for (const [k, chars, runs] of [
  [CYRILLIC, 18, 19],
  [GREEK, 20, -1],
  [HAN, 21, 22],
  [KANA, 23, 24],
  [HANGUL, 25, 26],
  [CJK_PUNCT, 27, -1],
  [ARABIC, 28, 29],
  [HEBREW, 30, 31],
  [INDIC, 32, 33],
  [BRAHMIC, 34, 35],
  [SOUTHEAST, 36, 37],
  [EMOJI, 38, -1],
  [EMOJI_MOD, 39, -1],
  [SYMBOL, 40, -1],
  [OTHER, 41, -1],
] as const) {
  CHAR_FEATURE[k] = chars;
  RUN_FEATURE[k] = runs;
}
const HAN_RUNS = 22;

/**
 * Fills `out` (length {@link TOKEN_FEATURE_COUNT}, zeroed here) with the features of `text`.
 *
 * Runs of one class are consumed by tight inner loops. A run of ASCII letters, digits and
 * Latin-extended letters is measured first and committed at its end: a long run that mixes digits
 * and letters or flips case often, with few lower-case stretches (hashes, base64), counts as
 * high-entropy instead of as words.
 */
export function extractTokenFeatures(text: string, out: Float64Array): Float64Array {
  out.fill(0);
  const n = text.length;
  // totals of the hot features, written to `out` at the end
  let tWords = 0;
  let tWordChars = 0;
  let tLong = 0;
  let tVlong = 0;
  let tCases = 0;
  let tExtWords = 0;
  let tDigitRuns = 0;
  let tDigits = 0;
  let tGroups = 0;
  let tEntropyRuns = 0;
  let tEntropyChars = 0;
  let tMixedChars = 0;
  let tSpaces = 0;
  let tSpaceRuns = 0;
  let tNewlines = 0;
  let tPunct = 0;
  let tPunctRuns = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const k = CLASS[c]!;
    if (k <= DIGIT) {
      if (k === SKIP) {
        i++;
        continue;
      }
      // one alphanumeric run, features of the run first
      let words = 0;
      let wordChars = 0;
      let long = 0;
      let vlong = 0;
      let cases = 0;
      let extWords = 0;
      let digitRuns = 0;
      let digits = 0;
      let groups = 0;
      let flips = 0;
      let plain = 0; // characters in lower-case stretches of 3 or more (word-like)
      let wordLen = 0;
      let wordExt = false;
      let rare = 0;
      let caseRun = 0; // current same-case stretch: > 0 lower case, < 0 upper case
      let hex = true;
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        let e = j + 1;
        let upper = false;
        if (d >= 97 && d <= 122) {
          if (d > 102) hex = false;
          let prev = d & 31;
          while (e < n) {
            const x = text.charCodeAt(e);
            if (x < 97 || x > 122) break;
            if (x > 102) hex = false;
            const b = x & 31;
            rare += RARE[(prev << 5) | b]!;
            prev = b;
            e++;
          }
        } else if (d >= 65 && d <= 90) {
          upper = true;
          hex = false;
          while (e < n) {
            const x = text.charCodeAt(e);
            if (x < 65 || x > 90) break;
            e++;
          }
        } else if (d >= 48 && d <= 57) {
          while (e < n) {
            const x = text.charCodeAt(e);
            if (x < 48 || x > 57) break;
            e++;
          }
          if (wordLen > 0) {
            words++;
            wordChars += wordLen;
            if (wordLen > 6) long += wordLen - 6;
            if (wordLen > 10) vlong += wordLen - 10;
            if (wordExt) extWords++;
            wordLen = 0;
            wordExt = false;
          }
          if (caseRun >= 3) plain += caseRun;
          caseRun = 0;
          digitRuns++;
          digits += e - j;
          groups += Math.ceil((e - j) / 3);
          j = e;
          continue;
        } else if (d >= 128 && CLASS[d] === LATIN_EXT) {
          hex = false;
          wordExt = true;
        } else break;
        const len = e - j;
        if (upper) {
          if (caseRun > 0) {
            flips++;
            cases++; // camelCase
            if (caseRun >= 3) plain += caseRun;
            caseRun = -len;
          } else caseRun -= len;
        } else if (caseRun < 0) {
          flips++;
          if (caseRun <= -2) cases++; // HTTPServer
          caseRun = len;
        } else caseRun += len;
        wordLen += len;
        j = e;
      }
      if (wordLen > 0) {
        words++;
        wordChars += wordLen;
        if (wordLen > 6) long += wordLen - 6;
        if (wordLen > 10) vlong += wordLen - 10;
        if (wordExt) extWords++;
      }
      if (caseRun >= 3) plain += caseRun;
      const len = j - i;
      if (len >= 12 && plain * 2 < len && ((digits >= 2 && len - digits >= 2) || flips >= 3)) {
        tEntropyRuns++;
        tEntropyChars += len;
        if (!hex) tMixedChars += len;
        out[42]! += groups;
      } else {
        tWords += words;
        tWordChars += wordChars;
        tLong += long;
        tVlong += vlong;
        tCases += cases;
        tExtWords += extWords;
        out[43]! += rare;
        tDigitRuns += digitRuns;
        tDigits += digits;
        tGroups += groups;
      }
      i = j;
      continue;
    }
    let e = i + 1;
    if (k === SPACE) {
      while (e < n && CLASS[text.charCodeAt(e)] === SPACE) e++;
      tSpaces += e - i;
      if (e - i >= 2) tSpaceRuns++;
    } else if (k === PUNCT) {
      while (e < n && CLASS[text.charCodeAt(e)] === PUNCT) e++;
      tPunct += e - i;
      tPunctRuns++;
    } else if (k === NEWLINE) {
      let lines = 1;
      for (; e < n; e++) {
        const d = text.charCodeAt(e);
        if (d === 10) lines++;
        else if (d !== 13) break;
      }
      tNewlines += lines;
    } else if (k === TAB) {
      while (e < n && text.charCodeAt(e) === 9) e++;
      out[14]! += e - i;
    } else if (k === HIGH_SURROGATE) {
      const astral = e < n ? classifyAstral(c, text.charCodeAt(e)) : OTHER;
      if (e < n) e++;
      out[CHAR_FEATURE[astral]!]!++;
      if (astral === HAN) out[HAN_RUNS]!++;
    } else {
      while (e < n && CLASS[text.charCodeAt(e)] === k) e++;
      out[CHAR_FEATURE[k]!]! += e - i;
      const r = RUN_FEATURE[k]!;
      if (r >= 0) out[r]!++;
    }
    i = e;
  }
  out[0] = tWords;
  out[1] = tWordChars;
  out[2] = tLong;
  out[3] = tVlong;
  out[4] = tCases;
  out[5] = tExtWords;
  out[6] = tDigitRuns;
  out[7] = tDigits;
  out[8] = tGroups;
  out[9] = tEntropyRuns;
  out[10] = tEntropyChars;
  out[11] = tMixedChars;
  out[12] = tSpaces;
  out[13] = tSpaceRuns;
  out[15] = tNewlines;
  out[16] = tPunct;
  out[17] = tPunctRuns;
  return out;
}
