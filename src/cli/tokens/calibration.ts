/**
 * Fitting and cross-validation of the calibrated estimator, shared by `npm run calibrate` and
 * the bench. Deterministic: files in name order, folds by position inside each category.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { extractTokenFeatures, TOKEN_FEATURE_COUNT } from '../../core/index.ts';
import type { CorpusFile } from './corpus.ts';
import { type FitSample, fitWeights, mean, percentile, predict } from './fit.ts';

export const FOLDS = 5;
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

export function loadScriptSamples(localeDir = zodLocales()): CorpusFile[] {
  const out: CorpusFile[] = [];
  const encoder = new TextEncoder();
  for (const locale of SCRIPT_LOCALES) {
    const path = join(localeDir, `${locale}.js`);
    if (!existsSync(path)) continue;
    const source = readFileSync(path, 'utf8');
    const strings = [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)]
      .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
      .filter((t) => /[\u0080-\uffff]/.test(t));
    const text = strings.join('\n');
    out.push({
      file: `zod-locales/${locale}`,
      category: SCRIPTS_CATEGORY,
      text,
      bytes: encoder.encode(text).length,
    });
  }
  return out;
}

/** Per-file sample weights: each category weighs √(its file count), so no category dominates. */
export function sampleWeights(files: readonly CorpusFile[]): number[] {
  const perCategory = new Map<string, number>();
  for (const f of files) perCategory.set(f.category, (perCategory.get(f.category) ?? 0) + 1);
  return files.map((f) => 1 / Math.sqrt(perCategory.get(f.category)!));
}

export function foldsOf(files: readonly CorpusFile[], folds = FOLDS): number[] {
  const seen = new Map<string, number>();
  return files.map((f) => {
    if (f.category === SCRIPTS_CATEGORY) return -1; // one text per script: always fitted on
    const i = seen.get(f.category) ?? 0;
    seen.set(f.category, i + 1);
    return i % folds;
  });
}

export interface ErrorStats {
  files: number;
  /** Mean absolute relative error. */
  mean: number;
  /** 95th percentile of the absolute relative error. */
  p95: number;
}

export function errorStats(errors: readonly number[]): ErrorStats {
  return { files: errors.length, mean: mean(errors), p95: percentile(errors, 95) };
}

export interface CrossValidation {
  /** Weights fitted on every calibration file. */
  weights: Float64Array;
  /** Out-of-fold absolute relative error per calibration file, in input order (in-sample for the script samples). */
  errors: number[];
  /** Over the calibration files except the script samples. */
  overall: ErrorStats;
  categories: Record<string, ErrorStats>;
  worstCategory: string;
  /** Files never fitted on, with the final weights. */
  unseen: ErrorStats;
}

export function features(text: string): Float64Array {
  return extractTokenFeatures(text, new Float64Array(TOKEN_FEATURE_COUNT));
}

/** K-fold cross-validation by file, then a final fit on all calibration files. */
export function crossValidate(
  fit: readonly CorpusFile[],
  unseen: readonly CorpusFile[],
  counts: ReadonlyMap<string, number>,
  folds = FOLDS,
): CrossValidation {
  const weights = sampleWeights(fit);
  const fold = foldsOf(fit, folds);
  const samples: FitSample[] = fit.map((f, i) => ({
    features: features(f.text),
    tokens: Math.max(1, counts.get(f.file) ?? 0),
    weight: weights[i]!,
  }));
  const errors: number[] = new Array(fit.length).fill(0);
  for (let k = 0; k < folds; k++) {
    const train = samples.filter((_, i) => fold[i] !== k);
    if (train.length === samples.length) continue;
    const w = fitWeights(train);
    samples.forEach((s, i) => {
      if (fold[i] === k) errors[i] = Math.abs(predict(s.features, w) - s.tokens) / s.tokens;
    });
  }
  const w = fitWeights(samples);
  samples.forEach((s, i) => {
    if (fold[i] === -1) errors[i] = Math.abs(predict(s.features, w) - s.tokens) / s.tokens; // in-sample
  });
  const byCategory = new Map<string, number[]>();
  fit.forEach((f, i) => {
    const list = byCategory.get(f.category) ?? [];
    list.push(errors[i]!);
    byCategory.set(f.category, list);
  });
  const categories = Object.fromEntries([...byCategory].map(([c, e]) => [c, errorStats(e)]));
  const ranked = Object.entries(categories)
    .filter(([c]) => c !== SCRIPTS_CATEGORY)
    .sort((a, b) => b[1].mean - a[1].mean);
  const unseenErrors = unseen.map((f) => {
    const t = Math.max(1, counts.get(f.file) ?? 0);
    return Math.abs(predict(features(f.text), w) - t) / t;
  });
  return {
    weights: w,
    errors,
    overall: errorStats(errors.filter((_, i) => fit[i]!.category !== SCRIPTS_CATEGORY)),
    categories,
    worstCategory: ranked[0]?.[0] ?? '',
    unseen: errorStats(unseenErrors),
  };
}
