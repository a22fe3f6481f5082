/**
 * What the injection scanner matches against (docs/memory-injection-scanner.md, "Normalisation"):
 * the text as a reader sees it, not as it is encoded. A hostile memory hides its words from a pattern
 * with Cyrillic or Greek look-alikes (`іgnоrе`), mathematical or full-width letters (`𝗂𝗀𝗇𝗈𝗋𝖾`,
 * `ｉｇｎｏｒｅ`), invisible characters inside a word (`ig\u00ADnore`, `ig\u200Bnore`), accents
 * (`ïgnörë`), digits for letters (`1gn0re`), emphasis marks (`i*g*n*o*r*e`) or spacing
 * (`i g n o r e`). Three forms, each computed once per text:
 *
 * - `lowered`: NFKC, lower-cased, lines kept — for the markup patterns (`<|im_start|>`, `# System
 *   prompt:`), whose punctuation matters;
 * - `folded`: `lowered` without invisible characters and combining marks, look-alikes mapped to the
 *   Latin letters they imitate, digits inside words read as letters, emphasis marks dropped,
 *   whitespace squashed — for the word patterns;
 * - `compact`: `folded` with nothing but its letters — for a few long phrases that no ordinary text
 *   spells when its spaces are gone (`ignoreallpreviousinstructions`), so that letter-spacing and
 *   punctuation between letters hide nothing.
 */

/** Characters that render as nothing (or as a hyphen only at a line break), removed before matching. */
// U+200D (the emoji joiner) as an alternation: in a class beside other characters it is a lint error.
const INVISIBLE =
  /\u200D|[\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\u{E0000}-\u{E007F}]/gu;

/** Combining marks (accents), dropped once the text is decomposed. */
const MARKS = /\p{M}+/gu;

/**
 * Letters of other scripts that look like Latin ones (from Unicode's confusables, restricted to the
 * lower-case letters a word pattern needs), after NFKC and lower-casing.
 */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ɡ: 'g',
  ъ: 'b',
  ь: 'b',
  п: 'n',
  г: 'r',
  ў: 'y',
  ӓ: 'a',
  ӧ: 'o',
  ӱ: 'y',
  ԍ: 'g',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  ω: 'w',
  ς: 's',
  σ: 'o',
  μ: 'u',
  ϲ: 'c',
  ϳ: 'j',
  // Armenian and others that pass NFKC unchanged
  օ: 'o',
  ս: 'u',
  ց: 'g',
  հ: 'h',
  ո: 'n',
  ı: 'i',
  ȷ: 'j',
  ɩ: 'i',
  ɑ: 'a',
  ʏ: 'y',
  ᴀ: 'a',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ɪ: 'i',
  ɴ: 'n',
  ᴏ: 'o',
  ᴜ: 'u',
  ᴅ: 'd',
  ᴇ: 'e',
  ɢ: 'g',
  ʜ: 'h',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ᴘ: 'p',
  ᴠ: 'v',
  ᴡ: 'w',
  ᴢ: 'z',
  ƅ: 'b',
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');

/** Digits and signs that stand for letters inside a word (`1gn0re`, `pr3vious`, `@ll`). */
const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
};
/** A word of letters and such characters, with a letter in it (so `1.5`, `2024` and `$HOME` stay). */
const LEET_WORD = /[a-z0-9@$]*[0-9@$][a-z0-9@$]*/g;

function unleet(word: string): string {
  if (!/[a-z]/.test(word)) return word;
  // `@` and `$` only between two letters or digits: `a@b` is a letter, `$home` a variable.
  return word.replace(/[0-9]|(?<=[a-z0-9])[@$](?=[a-z0-9])/g, (c) => LEET[c] ?? c);
}

/** Marks inside a word that emphasise or split it in Markdown (`i*g*n*o*r*e`, `ig_nore`). */
const WORD_SPLITTERS = /(?<=\p{L})[*_~`^]+(?=\p{L})/gu;

export interface ScanForms {
  lowered: string;
  folded: string;
  compact: string;
}

export function scanForms(text: string): ScanForms {
  const lowered = text.normalize('NFKC').toLowerCase();
  const folded = lowered
    .replace(INVISIBLE, '')
    .normalize('NFD')
    .replace(MARKS, '')
    .normalize('NFC')
    .replace(CONFUSABLE_RE, (c) => CONFUSABLES[c] ?? c)
    .replace(WORD_SPLITTERS, '')
    .replace(LEET_WORD, unleet)
    .replace(/[’‘`´]/g, "'")
    .replace(/\s+/g, ' ');
  const compact = folded.replace(/[^a-z]+/g, '');
  return { lowered, folded, compact };
}
