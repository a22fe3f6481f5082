/**
 * `ctxcheck bench tokens [--corpus dir] [--tokenizers o200k,cl100k,…] [--runs n] [--no-cv] [--json]`:
 * accuracy of ctxkit's calibrated estimator beside tokenx, characters/4 and characters/3.2 against
 * each preset's real tokenizer, per category, and their throughput measured side by side.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  CALIBRATED_PRESETS,
  type CalibratedPreset,
  codePointLength,
  createCalibratedCounter,
  isCalibratedPreset,
} from '../../core/index.ts';
import { type CliEnv, CliError, EXIT } from '../io.ts';
import { benchPackages, missingBenchPackages } from '../tokens/bench-packages.ts';
import { crossValidate, type ErrorStats, errorStats } from '../tokens/calibration.ts';
import { type CorpusFile, loadTokenCorpus, UNSEEN_CATEGORY } from '../tokens/corpus.ts';
import { isFitOnly, loadFitOnlySamples, UDHR_CATEGORY } from '../tokens/fit-only-texts.ts';
import { REFERENCE_TOKENIZERS } from '../tokens/reference-tokenizers.ts';

export interface BenchTokensOptions {
  /** Folder with `manifest.json` and the texts. */
  corpusDir: string;
  /** Presets whose reference tokenizers to measure against. @default all */
  tokenizers?: readonly CalibratedPreset[];
  /** Emit one JSON document instead of tables. @default false */
  json?: boolean;
  /** Timed passes over the corpus per estimator; the median is reported. @default 5 */
  runs?: number;
  /** Also refit per fold (5-fold, by file) and report ctxkit's cross-validated error. @default true */
  crossValidate?: boolean;
}

export interface BenchTokensIo {
  write(line: string): void;
  progress?(done: number, total: number): void;
}

export interface EstimatorAccuracy {
  estimator: string;
  /** Calibration categories (everything except the unseen texts). */
  overall: ErrorStats;
  /** `tokenx-fixtures/`: texts never fitted on. */
  unseen: ErrorStats;
  categories: Record<string, ErrorStats>;
}

export interface TokenizerResult {
  preset: CalibratedPreset;
  package: string;
  exactFor: string;
  /** Reference tokenizer's speed on its first pass over the corpus (UTF-8 MB per CPU second). */
  referenceMBps: number;
  estimators: EstimatorAccuracy[];
  /** ctxkit refitted without each file's fold; absent with `crossValidate: false`. */
  crossValidated?: EstimatorAccuracy;
  /** Signed relative error of the shipped weights per declaration language (udhr code), worst first. */
  languages?: Record<string, number>;
}

export interface BenchTokensResult {
  corpus: string;
  files: number;
  bytes: number;
  /** UTF-8 MB per CPU second, median of `runs` interleaved passes over the whole corpus. */
  throughput: Record<string, number>;
  tokenizers: TokenizerResult[];
}

type Estimate = (text: string) => number;

/** tokenx, loaded by `runBenchTokens` after the package check (an optional peer). */
let estimateTokenCount: Estimate = () => {
  throw new Error('tokenx not loaded');
};

function baselines(preset: CalibratedPreset): Array<[string, Estimate]> {
  const ctxkit = createCalibratedCounter({ preset });
  return [
    ['ctxkit', ctxkit.countText],
    ['tokenx', (t) => estimateTokenCount(t)],
    ['chars/4', (t) => Math.ceil(codePointLength(t) / 4)],
    ['chars/3.2', (t) => Math.ceil(codePointLength(t) / 3.2)],
  ];
}

function accuracy(
  name: string,
  files: readonly CorpusFile[],
  truth: ReadonlyMap<string, number>,
  errorOf: (f: CorpusFile, i: number) => number,
): EstimatorAccuracy {
  const byCategory = new Map<string, number[]>();
  const overall: number[] = [];
  const unseen: number[] = [];
  files.forEach((f, i) => {
    if (!truth.has(f.file)) return;
    const e = errorOf(f, i);
    byCategory.set(f.category, [...(byCategory.get(f.category) ?? []), e]);
    if (f.category === UNSEEN_CATEGORY) unseen.push(e);
    else if (!isFitOnly(f.category)) overall.push(e);
  });
  const categories = Object.fromEntries([...byCategory].map(([c, e]) => [c, errorStats(e)]));
  return { estimator: name, overall: errorStats(overall), unseen: errorStats(unseen), categories };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/**
 * Passes over all texts, estimators interleaved so that machine load hits them alike; timed in
 * process CPU time, which other processes on a busy machine do not inflate.
 */
function measureThroughput(files: readonly CorpusFile[], runs: number): Record<string, number> {
  const bytes = files.reduce((a, f) => a + f.bytes, 0);
  const estimators = baselines('o200k');
  const times = new Map<string, number[]>(estimators.map(([n]) => [n, []]));
  let sink = 0;
  for (const [, estimate] of estimators) for (const f of files) sink += estimate(f.text); // warm-up
  for (let r = 0; r < runs; r++) {
    for (const [name, estimate] of estimators) {
      const t0 = process.cpuUsage();
      for (const f of files) sink += estimate(f.text);
      const dt = process.cpuUsage(t0);
      times.get(name)!.push((dt.user + dt.system) / 1000);
    }
  }
  if (sink < 0) throw new Error('unreachable');
  return Object.fromEntries(
    [...times].map(([n, t]) => [n, bytes / 1e6 / (Math.max(1e-3, median(t)) / 1000)]),
  );
}

export async function runBenchTokens(
  options: BenchTokensOptions,
  io: BenchTokensIo,
): Promise<BenchTokensResult> {
  const presets = options.tokenizers ?? CALIBRATED_PRESETS;
  const missing = await missingBenchPackages(benchPackages(presets, options.crossValidate !== false));
  if (missing !== undefined) throw new CliError(missing);
  estimateTokenCount = (await import('tokenx')).estimateTokenCount;
  const files = await loadTokenCorpus(options.corpusDir);
  const bytes = files.reduce((a, f) => a + f.bytes, 0);
  const scripts = options.crossValidate === false ? [] : loadFitOnlySamples();
  const total = presets.length * (files.length + scripts.length);
  let done = 0;
  const tokenizers: TokenizerResult[] = [];
  for (const preset of presets) {
    const ref = REFERENCE_TOKENIZERS[preset];
    const count = await ref.load();
    const truth = new Map<string, number>();
    let refMs = 0;
    for (const f of [...files, ...scripts]) {
      const t0 = process.cpuUsage();
      truth.set(f.file, Math.max(1, count(f.text)));
      const dt = process.cpuUsage(t0);
      if (!isFitOnly(f.category)) refMs += (dt.user + dt.system) / 1000;
      io.progress?.(++done, total);
    }
    const relErr = (estimate: Estimate) => (f: CorpusFile) =>
      Math.abs(estimate(f.text) - truth.get(f.file)!) / truth.get(f.file)!;
    const measured = [...files, ...scripts.filter((f) => f.category === UDHR_CATEGORY)];
    const estimates = baselines(preset);
    const estimators = estimates.map(([name, estimate]) => accuracy(name, measured, truth, relErr(estimate)));
    const result: TokenizerResult = {
      preset,
      package: ref.package,
      exactFor: ref.exactFor,
      referenceMBps: bytes / 1e6 / (Math.max(1e-3, refMs) / 1000),
      estimators,
    };
    const declarations = measured.filter((f) => f.category === UDHR_CATEGORY);
    if (declarations.length > 0) {
      const [, ctxkit] = estimates[0]!;
      const signed = declarations.map((f) => {
        const t = truth.get(f.file)!;
        return [f.file.slice(UDHR_CATEGORY.length + 1), (ctxkit(f.text) - t) / t] as const;
      });
      result.languages = Object.fromEntries(signed.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])));
    }
    if (options.crossValidate !== false) {
      const fit = [...files.filter((f) => f.category !== UNSEEN_CATEGORY), ...scripts];
      const cv = crossValidate(
        fit,
        files.filter((f) => f.category === UNSEEN_CATEGORY),
        truth,
      );
      const cvError = new Map(fit.map((f, i) => [f.file, cv.errors[i]!]));
      const shipped = estimators[0]!;
      // Unseen texts keep the shipped weights' figures: they were never fitted on.
      result.crossValidated = {
        ...accuracy('ctxkit (cv)', measured, truth, (f) =>
          f.category === UNSEEN_CATEGORY ? relErr(estimates[0]![1])(f) : cvError.get(f.file)!,
        ),
        unseen: shipped.unseen,
      };
    }
    tokenizers.push(result);
  }
  const result: BenchTokensResult = {
    corpus: options.corpusDir,
    files: files.length,
    bytes,
    throughput: measureThroughput(files, options.runs ?? 5),
    tokenizers,
  };
  if (options.json) io.write(JSON.stringify(result, null, 2));
  else for (const line of renderBenchTokens(result)) io.write(line);
  return result;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function renderBenchTokens(result: BenchTokensResult): string[] {
  const lines: string[] = [];
  lines.push(`Corpus ${result.corpus}: ${result.files} files, ${(result.bytes / 1e6).toFixed(2)} MB`);
  for (const t of result.tokenizers) {
    const all = t.crossValidated ? [t.crossValidated, ...t.estimators] : t.estimators;
    lines.push('', `## ${t.preset}: ${t.package} (${t.exactFor})`);
    lines.push(`| category | files | ${all.map((e) => `${e.estimator} mean / p95`).join(' | ')} |`);
    lines.push(`|---|---:|${all.map(() => '---:').join('|')}|`);
    const categories = Object.keys(t.estimators[0]!.categories).sort();
    for (const c of categories) {
      const label =
        c === UNSEEN_CATEGORY ? `${c} (unseen)` : c === UDHR_CATEGORY ? `${c} (cv by language)` : c;
      const cells = all.map((e) => {
        const s = e.categories[c];
        return s ? `${pct(s.mean)} / ${pct(s.p95)}` : '–';
      });
      lines.push(`| ${label} | ${t.estimators[0]!.categories[c]!.files} | ${cells.join(' | ')} |`);
    }
    const row = (label: string, pick: (e: EstimatorAccuracy) => ErrorStats) =>
      `| **${label}** | ${pick(t.estimators[0]!).files} | ${all.map((e) => `**${pct(pick(e).mean)} / ${pct(pick(e).p95)}**`).join(' | ')} |`;
    lines.push(
      row('calibration texts (corpus)', (e) => e.overall),
      row('unseen texts', (e) => e.unseen),
    );
    if (t.languages) {
      const signed = Object.entries(t.languages).map(
        ([l, e]) => `${l} ${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`,
      );
      lines.push(`udhr per language (ctxkit, signed, worst first): ${signed.join(', ')}`);
    }
    lines.push(`reference tokenizer: ${t.referenceMBps.toFixed(1)} MB/s (one pass)`);
  }
  lines.push('', '## Throughput (UTF-8 MB per CPU second, median of interleaved passes over the corpus)');
  lines.push('| estimator | MB/s | vs tokenx |', '|---|---:|---:|');
  const tokenx = result.throughput.tokenx ?? 1;
  for (const [name, mbps] of Object.entries(result.throughput)) {
    lines.push(`| ${name} | ${mbps.toFixed(1)} | ${(mbps / tokenx).toFixed(1)}× |`);
  }
  if (result.tokenizers.some((t) => t.crossValidated)) {
    lines.push(
      '',
      'ctxkit (cv): 5-fold cross-validated by file; ctxkit: the shipped weights (fitted on these texts).',
    );
  }
  return lines;
}

/** The token corpus beside a clone of the repository (../shared/data/tokens, see its data/README.md). */
const DEFAULT_CORPUS = '../shared/data/tokens';

interface Args {
  corpus?: string;
  tokenizers: string;
  json: boolean;
  runs: number;
  cv: boolean;
}

export function benchTokensCommand(env: CliEnv): CommandModule<object, Args> {
  return {
    command: 'tokens',
    describe: "Accuracy and speed of ctxkit's token estimator vs tokenx and chars/4 against real tokenizers",
    builder: (y: Argv) =>
      y
        .option('corpus', {
          type: 'string',
          describe: `folder with manifest.json (default ${DEFAULT_CORPUS}: the repository's shared data)`,
        })
        .option('tokenizers', {
          type: 'string',
          default: CALIBRATED_PRESETS.join(','),
          describe: 'presets to measure',
        })
        .option('runs', { type: 'number', default: 5, describe: 'timed passes per estimator (median)' })
        .option('cv', { type: 'boolean', default: true, describe: 'also report cross-validated accuracy' })
        .option('json', { type: 'boolean', default: false }) as Argv<Args>,
    handler: async (args) => {
      const corpusDir = resolve(env.io.cwd, args.corpus ?? DEFAULT_CORPUS);
      if (!existsSync(join(corpusDir, 'manifest.json')))
        throw new CliError(
          args.corpus === undefined
            ? `--corpus DIR is needed here: the default ${DEFAULT_CORPUS} (the ctxkit repository's shared data, run from the repository root) has no manifest.json (${corpusDir})`
            : `--corpus: no manifest.json in ${corpusDir}`,
        );
      const tokenizers = args.tokenizers.split(',').map((s) => s.trim());
      const bad = tokenizers.find((s) => !isCalibratedPreset(s));
      if (bad !== undefined)
        throw new CliError(`--tokenizers: unknown '${bad}' (known: ${CALIBRATED_PRESETS.join(', ')})`);
      if (!(Number.isInteger(args.runs) && args.runs >= 1))
        throw new CliError('--runs: must be an integer ≥ 1');
      const tty = !args.json && process.stderr.isTTY === true;
      await runBenchTokens(
        {
          corpusDir,
          tokenizers: tokenizers as CalibratedPreset[],
          json: args.json,
          runs: args.runs,
          crossValidate: args.cv,
        },
        {
          write: (line) => env.io.out(line),
          progress: (done, total) => {
            if (!tty) return;
            const width = 30;
            const filled = Math.round((done / Math.max(1, total)) * width);
            process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
            if (done === total) process.stderr.write('\n');
          },
        },
      );
      env.exit(EXIT.ok);
    },
  };
}
