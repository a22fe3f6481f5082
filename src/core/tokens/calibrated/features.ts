/**
 * Character-class features of a text, extracted in one pass over its UTF-16 code units.
 *
 * Each feature is a count (of characters or of runs) whose token cost is roughly constant for a
 * given tokenizer; a calibrated estimate is the dot product of these counts with fitted weights.
 */

/** Names of the features, in the order of the vector that {@link extractTokenFeatures} fills. */
export const TOKEN_FEATURE_NAMES = [
  'words', // runs of Latin letters (ASCII or Latin-extended)
  'wordChars', // letters in those runs
  'longChars', // Σ max(0, length − 6) over words
  'vlongChars', // Σ max(0, length − 10) over words
  'caseSwitches', // camelCase and ACRONYMWord boundaries inside words
  'latinExt', // Latin-1 / Latin-extended letters (é, ç, ß…)
  'latinExtWords', // words containing at least one of them
  'digitRuns',
  'digits',
  'digitGroups', // Σ ceil(length / 3) over digit runs
  'entropyRuns', // long alphanumeric runs that look like hashes or base64
  'entropyChars',
  'spaces',
  'spaceRuns', // runs of two or more spaces (indentation, alignment)
  'spaceRunExtra', // Σ (length − 1) over those runs
  'tabs',
  'newlines',
  'newlineRuns', // runs of two or more newlines (blank lines)
  'punct', // ASCII punctuation and symbols
  'punctRuns',
  'cyrillic',
  'cyrillicWords',
  'greek',
  'han', // CJK ideographs
  'kana', // Hiragana, Katakana
  'hangul',
  'hangulWords',
  'cjkPunct', // CJK punctuation, full-width forms
  'arabic', // Hebrew, Arabic, Syriac…
  'arabicWords',
  'indic', // Devanagari and other South / South-East Asian scripts
  'indicWords',
  'emoji', // pictographs and dingbats, one per code point
  'emojiMods', // variation selector 16, zero-width joiner, skin tones
  'symbols', // other non-ASCII punctuation and symbols (“ ” — … → │)
  'other', // every other code point
] as const;

export type TokenFeatureName = (typeof TOKEN_FEATURE_NAMES)[number];
export const TOKEN_FEATURE_COUNT = TOKEN_FEATURE_NAMES.length;

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

/** Feature index per class for plain per-character counts (−1: counted elsewhere). */
const CHAR_FEATURE = new Int8Array(21).fill(-1);
CHAR_FEATURE[TAB] = 15;
CHAR_FEATURE[CYRILLIC] = 20;
CHAR_FEATURE[GREEK] = 22;
CHAR_FEATURE[HAN] = 23;
CHAR_FEATURE[KANA] = 24;
CHAR_FEATURE[HANGUL] = 25;
CHAR_FEATURE[CJK_PUNCT] = 27;
CHAR_FEATURE[ARABIC] = 28;
CHAR_FEATURE[INDIC] = 30;
CHAR_FEATURE[EMOJI] = 32;
CHAR_FEATURE[EMOJI_MOD] = 33;
CHAR_FEATURE[SYMBOL] = 34;
CHAR_FEATURE[OTHER] = 35;

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

/** Class of a non-ASCII BMP code unit (surrogates are handled by the caller). */
function classify(c: number): number {
  if (c < 0x250) {
    if (c >= 0xc0 && c !== 0xd7 && c !== 0xf7) return LATIN_EXT;
    return c === 0xa0 ? SPACE : SYMBOL;
  }
  if (c < 0x370) return c < 0x300 ? SYMBOL : LATIN_EXT; // spacing modifiers, combining marks
  if (c < 0x400) return GREEK;
  if (c < 0x530) return CYRILLIC;
  if (c < 0x900) return ARABIC; // Armenian, Hebrew, Arabic, Syriac, Thaana…
  if (c < 0x1100) return INDIC; // Indic, Thai, Lao, Tibetan, Myanmar, Georgian
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

/** Fills `out` (length {@link TOKEN_FEATURE_COUNT}, zeroed here) with the features of `text`. */
export function extractTokenFeatures(text: string, out: Float64Array): Float64Array {
  out.fill(0);
  const n = text.length;
  let prev = SKIP;
  let run = 0; // length of the current run of `prev`
  // current word / digit run / alphanumeric run
  let wordLen = 0;
  let wordExt = false;
  let upperRun = 0;
  let digitLen = 0;
  let alnumLen = 0;
  let alnumDigits = 0;
  let alnumFlips = 0;
  let alnumPlain = 0; // characters in lower-case letter runs of 3 or more (word-like)
  let caseRun = 0; // length of the current same-case letter run, negative when upper case
  // features of the current alphanumeric run, committed at its end unless it looks like a hash
  let aWords = 0;
  let aWordChars = 0;
  let aLong = 0;
  let aVlong = 0;
  let aCase = 0;
  let aExtWords = 0;
  let aDigitRuns = 0;
  let aDigits = 0;
  let aGroups = 0;
  for (let i = 0; i <= n; i++) {
    let k: number;
    if (i === n) k = SKIP;
    else {
      const c = text.charCodeAt(i);
      if (c < 128) k = ASCII_CLASS[c]!;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
        k = classifyAstral(c, text.charCodeAt(i + 1));
        i++;
      } else k = classify(c);
      if (k === SKIP && i < n) continue; // invisible: does not break runs
    }
    if (k >= LOWER && k <= LATIN_EXT) {
      // letter
      if (k === UPPER) upperRun++;
      else {
        if (k === LOWER && upperRun >= 2) aCase++; // HTTPServer: HTTP|Server
        upperRun = 0;
      }
      if (prev === LOWER && k === UPPER) aCase++;
      const flip = (prev === LOWER && k === UPPER) || (prev === UPPER && k === LOWER);
      if (flip) alnumFlips++;
      if (flip || prev > LATIN_EXT || prev === SKIP) {
        if (caseRun >= 3) alnumPlain += caseRun;
        caseRun = k === UPPER ? -1 : 1; // negative: an upper-case run, never word-like
      } else caseRun += caseRun < 0 ? -1 : 1;
      if (digitLen > 0) {
        aDigitRuns++;
        aDigits += digitLen;
        aGroups += Math.ceil(digitLen / 3);
        digitLen = 0;
      }
      if (k === LATIN_EXT) {
        out[5]!++;
        wordExt = true;
      }
      wordLen++;
      alnumLen++;
    } else {
      upperRun = 0;
      if (caseRun >= 3) alnumPlain += caseRun;
      caseRun = 0;
      if (wordLen > 0) {
        aWords++;
        aWordChars += wordLen;
        if (wordLen > 6) aLong += wordLen - 6;
        if (wordLen > 10) aVlong += wordLen - 10;
        if (wordExt) aExtWords++;
        wordLen = 0;
        wordExt = false;
      }
      if (k === DIGIT) {
        digitLen++;
        alnumLen++;
        alnumDigits++;
      } else {
        if (digitLen > 0) {
          aDigitRuns++;
          aDigits += digitLen;
          aGroups += Math.ceil(digitLen / 3);
          digitLen = 0;
        }
        if (alnumLen > 0) {
          const letters = alnumLen - alnumDigits;
          const entropic =
            alnumLen >= 12 &&
            alnumPlain * 2 < alnumLen &&
            ((alnumDigits >= 2 && letters >= 2) || alnumFlips >= 3);
          if (entropic) {
            out[10]!++;
            out[11]! += alnumLen;
          } else {
            out[0]! += aWords;
            out[1]! += aWordChars;
            out[2]! += aLong;
            out[3]! += aVlong;
            out[4]! += aCase;
            out[6]! += aExtWords;
            out[7]! += aDigitRuns;
            out[8]! += aDigits;
            out[9]! += aGroups;
          }
          alnumLen = alnumDigits = alnumFlips = alnumPlain = 0;
          aWords = aWordChars = aLong = aVlong = aCase = aExtWords = aDigitRuns = aDigits = aGroups = 0;
        }
      }
    }
    if (k === prev) run++;
    else {
      // close the previous run, open the new one
      if (prev === SPACE && run >= 2) {
        out[13]!++;
        out[14]! += run - 1;
      } else if (prev === NEWLINE && run >= 2) out[17]!++;
      if (k === PUNCT) out[19]!++;
      else if (k === CYRILLIC) out[21]!++;
      else if (k === HANGUL) out[26]!++;
      else if (k === ARABIC) out[29]!++;
      else if (k === INDIC) out[31]!++;
      prev = k;
      run = 1;
    }
    if (k === SPACE) out[12]!++;
    else if (k === NEWLINE) out[16]!++;
    else if (k === PUNCT) out[18]!++;
    else if (k > PUNCT || k === TAB) {
      const f = CHAR_FEATURE[k]!;
      if (f >= 0) out[f]!++;
    }
  }
  return out;
}
