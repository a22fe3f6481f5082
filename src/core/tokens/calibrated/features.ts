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
  'cyrillic', // А–я: the Russian alphabet but Ё and ё
  'cyrillicWords', // runs of Cyrillic letters, Russian or not
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
  'hebrew',
  'hebrewWords', // runs of Hebrew or of Armenian letters
  'indic', // Devanagari
  'indicWords', // runs of Devanagari or of Bengali letters
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
  'cjkLong', // Σ max(0, length − 8) over runs of Han, kana and CJK punctuation (prose rather than docs)
  'newlineRuns', // runs of line breaks (blank lines merge in BPE)
  'punctAlone', // punctuation runs not directly followed by a letter (`/usr`, `.ts` merge)
  'cyrillicExt', // the rest of the Cyrillic block (ё і ї є ґ ў ә ң ө ү…): rarer in vocabularies
  'armenian', // Armenian letters
  'bengali', // Bengali letters (their runs count as Indic words)
] as const;

export type TokenFeatureName = (typeof TOKEN_FEATURE_NAMES)[number];
/** Length of the feature vector (= `TOKEN_FEATURE_NAMES.length`). */
export const TOKEN_FEATURE_COUNT = 50;

// Character classes: SKIP 0, LOWER 1, UPPER 2, LATIN_EXT 3, DIGIT 4, SPACE 5, TAB 6, NEWLINE 7,
// PUNCT 8, CYRILLIC 9, GREEK 10, HAN 11, KANA 12, HANGUL 13, CJK_PUNCT 14, ARABIC 15, INDIC 16,
// EMOJI 17, EMOJI_MOD 18, SYMBOL 19, OTHER 20, HEBREW 21, BRAHMIC 22, SOUTHEAST 23,
// HIGH_SURROGATE 24, CYRILLIC_EXT 25, ARMENIAN 26, BENGALI 27. Letters are 1–3 and alphanumerics
// 1–4 so that range checks stay cheap; only the classes that the code names are declared.
const SKIP = 0;
const LATIN_EXT = 3;
const DIGIT = 4;
const SPACE = 5;
const TAB = 6;
const NEWLINE = 7;
const PUNCT = 8;
const HAN = 11;
const HANGUL = 13;
const CJK_PUNCT = 14;
const EMOJI = 17;
const EMOJI_MOD = 18;
const OTHER = 20;
const HIGH_SURROGATE = 24;

/**
 * Class of every BMP code unit, as ranges: the first code unit in 4 hex digits, then the class as
 * the letter 'a' + class. ASCII: letters, digits, space, tab and \n get their classes, other
 * controls (\r) SKIP, the rest PUNCT. Then: Latin-1 and Latin Extended letters (U+00C0–024F except
 * × ÷), combining marks (U+0300–036F) and Latin Extended Additional (Vietnamese) LATIN_EXT; NBSP
 * SPACE; IPA and spacing modifiers SYMBOL; Greek and Greek Extended; А–я CYRILLIC and the rest of
 * the Cyrillic block (Ё and ё included) CYRILLIC_EXT; Armenian ARMENIAN; Hebrew HEBREW; Arabic,
 * Syriac, Thaana and the Arabic presentation forms ARABIC; Devanagari INDIC; Bengali BENGALI;
 * Gurmukhi to Sinhala BRAHMIC; Thai, Lao, Tibetan, Myanmar, Georgian SOUTHEAST; Hangul Jamo,
 * compatibility Jamo and syllables HANGUL; ZWJ and variation selectors EMOJI_MOD; misc symbols,
 * dingbats and the arrows and stars from U+2B00 EMOJI; other general punctuation, arrows, math and
 * box drawing SYMBOL; CJK radicals, ideographs and compatibility ideographs HAN; Hiragana, Katakana
 * (also half-width) KANA; CJK symbols and full-width forms CJK_PUNCT; BOM SKIP; surrogates apart;
 * everything else (private use included) OTHER. A test checks a sample of each.
 */
const RANGES =
  '0000a0009g000ah000ba0020f0021i0030e003ai0041c005bi0061b007bi007fa0080t00a0f00a1t00c0d00d7t00d8d00f7t' +
  '00f8d0250t0300d0370k0400z0410j0450z0530{0590v0600p0900q0980|0a00w0e00x1100n1200u1e00d1f00k2000t' +
  '200ds200et2600r27c0t2b00r2c00u2e80l3000o3040m3100u3130n3190o31f0m3200o3400la000uac00nd7b0ud800y' +
  'dc00uf900lfb00pfe00sfe10ofeffaff00off66mffa0u';
const CLASS = new Uint8Array(0x10000);
for (let i = 0; i < RANGES.length; i += 5)
  CLASS.fill(RANGES.charCodeAt(i + 4) - 97, Number.parseInt(RANGES.slice(i, i + 4), 16));

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

/**
 * `charCodeAt` read once, called as `codeAt.call(text, i)`. Texts reach this pass in every form V8
 * has (flat, concatenated, sliced, one or two bytes a character): read as `text.charCodeAt`, the
 * method lookup itself turns megamorphic and costs a stub call per character (25–45 ns a character
 * inside a replay against about 10 here).
 */
const codeAt = String.prototype.charCodeAt;

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

/**
 * Feature index per class (the class is the position in the string, the index its char code − 48;
 * −1 = none) for per-character counts: Cyrillic 18, Greek 20, Han 21, kana 23, Hangul 25, CJK
 * punctuation 27, Arabic 28, Hebrew 30, Indic 32, Brahmic 34, Southeast 36, emoji 38, emoji
 * modifiers 39, symbols 40, other 41, Cyrillic outside А–я 47, Armenian 48, Bengali 49; and for
 * counts of runs: Cyrillic (both classes) 19, Han 22, kana 24, Hangul 26, Arabic 29, Hebrew and
 * Armenian 31, Devanagari and Bengali 33, Brahmic 35, Southeast 37. Numeric indices into
 * TOKEN_FEATURE_NAMES (a test checks them), so that bundles that only estimate leave the names out.
 */
const CHAR_FEATURE = Int8Array.from('/////////BDEGIKLPVWXYNRT/_`a', (c) => c.charCodeAt(0) - 48);
const RUN_FEATURE = Int8Array.from('/////////C/FHJ/MQ////OSU/COQ', (c) => c.charCodeAt(0) - 48);
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
  let tTabs = 0;
  let cjkRun = 0; // length of the current run of Han, kana and CJK punctuation
  let cjkEnd = -1;
  let i = 0;
  while (i < n) {
    const c = codeAt.call(text, i);
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
        const d = codeAt.call(text, j);
        let e = j + 1;
        let upper = false;
        if (d >= 97 && d <= 122) {
          if (d > 102) hex = false;
          let prev = d & 31;
          while (e < n) {
            const x = codeAt.call(text, e);
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
            const x = codeAt.call(text, e);
            if (x < 65 || x > 90) break;
            e++;
          }
        } else if (d >= 48 && d <= 57) {
          while (e < n) {
            const x = codeAt.call(text, e);
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
          groups += ((e - j + 2) / 3) | 0; // ceil(length / 3)
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
      while (e < n && CLASS[codeAt.call(text, e)] === SPACE) e++;
      tSpaces += e - i;
      if (e - i >= 2) tSpaceRuns++;
    } else if (k === PUNCT) {
      while (e < n && CLASS[codeAt.call(text, e)] === PUNCT) e++;
      tPunct += e - i;
      tPunctRuns++;
      if (e >= n || CLASS[codeAt.call(text, e)]! - 1 > 2) out[46]!++; // not LOWER, UPPER, LATIN_EXT
    } else if (k === NEWLINE) {
      let lines = 1;
      for (; e < n; e++) {
        const d = codeAt.call(text, e);
        if (d === 10) lines++;
        else if (d !== 13) break;
      }
      tNewlines += lines;
      out[45]!++;
    } else if (k === TAB) {
      while (e < n && codeAt.call(text, e) === 9) e++;
      tTabs += e - i;
    } else if (k === HIGH_SURROGATE) {
      const astral = e < n ? classifyAstral(c, codeAt.call(text, e)) : OTHER;
      if (e < n) e++;
      out[CHAR_FEATURE[astral]!]!++;
      if (astral === HAN) out[HAN_RUNS]!++;
    } else {
      while (e < n && CLASS[codeAt.call(text, e)] === k) e++;
      out[CHAR_FEATURE[k]!]! += e - i;
      if (k >= HAN && k <= CJK_PUNCT && k !== HANGUL) {
        cjkRun = cjkEnd === i ? cjkRun + e - i : e - i;
        cjkEnd = e;
        if (cjkRun > 8) out[44]! += Math.min(e - i, cjkRun - 8);
      }
      const r = RUN_FEATURE[k]!;
      if (r >= 0) out[r]!++;
    }
    i = e;
  }
  // features 0–17 (the hot ones) in order
  out.set([
    tWords,
    tWordChars,
    tLong,
    tVlong,
    tCases,
    tExtWords,
    tDigitRuns,
    tDigits,
    tGroups,
    tEntropyRuns,
    tEntropyChars,
    tMixedChars,
    tSpaces,
    tSpaceRuns,
    tTabs,
    tNewlines,
    tPunct,
    tPunctRuns,
  ]);
  return out;
}
