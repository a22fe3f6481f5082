/**
 * `ctxcheck bench compaction`: every case × every strategy, measured with o200k. Returns rows and a
 * mean per strategy; rendering is the command's job.
 */
import {
  createTiktokenCounter,
  type PresetName,
  type Summarizer,
  type TokenCounter,
} from '../../core/index.ts';
import { type CompactionCase, loadCases, loadHeldOutCases } from './cases.ts';
import { countTokens, referenceRecall, salientReferences } from './measure.ts';
import { baselineStrategies, presetStrategy, type StrategyResult, usableInput } from './strategies.ts';

export interface BenchRow {
  case: string;
  /** The trajectories folder the case comes from (`claude-code`, `mini-swe-agent`…). */
  source: string;
  /** `production` (a real compaction) or `50%` / `75%` of a long run. */
  cut: CompactionCase['cut'];
  strategy: string;
  prefixTokens: number;
  tokens: number;
  reduction: number;
  recall: number;
  references: number;
  /** The compacted context is larger (o200k) than the input the window allows. */
  overBudget: boolean;
}

export interface StrategyMean {
  strategy: string;
  /** `all`, or one trajectories folder (so held-out sources can be read apart). */
  group: string;
  cases: number;
  reduction: number;
  /** The smallest reduction over the cases. */
  minReduction: number;
  recall: number;
  /** Cases whose compacted context is larger than the window allows (o200k). */
  overBudget: number;
}

/** Mean groups by kind of cut: the real compactions, and 50% / 75% of the other long runs. */
export const PRODUCTION_GROUP = 'production';
export const RUNS_GROUP = 'long-run';

/** Smallest window a share of the prefix gives (tokens), so tiny prefixes still get a working budget. */
export const MIN_SHARE_WINDOW = 500;

export interface CompactionBenchOptions {
  dataDir: string;
  /** Presets to run at fixed windows. */
  presets: readonly PresetName[];
  /** Fixed context windows (tokens) for every preset. */
  windows: readonly number[];
  /** Windows as a share of each prefix, for `default` (0.05 → at least 95% reduction). */
  shares: readonly number[];
  summarizer: Summarizer;
  /** Run the held-out cut points (`loadHeldOutCases`) instead of the tuned set. @default false */
  heldOut?: boolean;
  /** Only cases whose id contains this. */
  filter?: string;
  onProgress?: (done: number, total: number, label: string) => void;
}

export interface CompactionBenchResult {
  rows: BenchRow[];
  means: StrategyMean[];
  cases: number;
}

async function strategiesFor(
  c: CompactionCase,
  o: CompactionBenchOptions,
  counter: TokenCounter,
): Promise<StrategyResult[]> {
  const out = baselineStrategies(c, counter, []);
  for (const preset of o.presets)
    for (const window of o.windows)
      out.push({
        strategy: `${preset} @ ${window / 1000}k`,
        messages: await presetStrategy(preset, c.prefix, window, o.summarizer),
        budget: usableInput(window),
      });
  const prefixTokens = countTokens(c.prefix, counter);
  for (const share of o.shares) {
    const window = Math.max(MIN_SHARE_WINDOW, Math.floor(prefixTokens * share));
    out.push({
      strategy: `default @ ${Math.round(share * 100)}% of prefix`,
      messages: await presetStrategy('default', c.prefix, window, o.summarizer),
      budget: usableInput(window),
    });
  }
  return out;
}

export async function runCompactionBench(o: CompactionBenchOptions): Promise<CompactionBenchResult> {
  const counter = await createTiktokenCounter('o200k_base');
  const all = o.heldOut ? loadHeldOutCases(o.dataDir) : loadCases(o.dataDir);
  const cases = all.filter((c) => !o.filter || c.id.includes(o.filter));
  const rows: BenchRow[] = [];
  for (const [i, c] of cases.entries()) {
    o.onProgress?.(i, cases.length, c.id);
    const refs = salientReferences(c.prefix, c.after);
    const prefixTokens = countTokens(c.prefix, counter);
    for (const s of await strategiesFor(c, o, counter)) {
      const tokens = countTokens(s.messages, counter);
      rows.push({
        case: c.id,
        source: c.trajectory.split('/')[0] ?? '',
        cut: c.cut,
        strategy: s.strategy,
        prefixTokens,
        tokens,
        reduction: 1 - tokens / prefixTokens,
        recall: referenceRecall(refs, s.messages),
        references: refs.length,
        overBudget: s.budget !== undefined && tokens > s.budget,
      });
    }
  }
  o.onProgress?.(cases.length, cases.length, 'done');
  const sources = [...new Set(rows.map((r) => r.source))];
  const production = rows.filter((r) => r.cut === 'production');
  const runs = rows.filter((r) => r.cut !== 'production');
  const means = [...meansOf(rows, 'all')];
  if (production.length > 0 && runs.length > 0)
    means.push(...meansOf(production, PRODUCTION_GROUP), ...meansOf(runs, RUNS_GROUP));
  if (sources.length > 1)
    for (const g of sources)
      means.push(
        ...meansOf(
          rows.filter((r) => r.source === g),
          g,
        ),
      );
  return { rows, means, cases: cases.length };
}

/** Mean reduction, smallest reduction and mean recall per strategy, in first-seen strategy order. */
export function meansOf(rows: readonly BenchRow[], group: string): StrategyMean[] {
  const byStrategy = new Map<string, BenchRow[]>();
  for (const r of rows) byStrategy.set(r.strategy, [...(byStrategy.get(r.strategy) ?? []), r]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return [...byStrategy.entries()].map(([strategy, rs]) => ({
    strategy,
    group,
    cases: rs.length,
    reduction: mean(rs.map((r) => r.reduction)),
    minReduction: Math.min(...rs.map((r) => r.reduction)),
    recall: mean(rs.map((r) => r.recall)),
    overBudget: rs.filter((r) => r.overBudget).length,
  }));
}

/** Reduction bands the means are grouped by (lower bounds, best first). */
export const REDUCTION_BANDS = [0.95, 0.8, 0.5, 0] as const;

/** The band of a mean reduction: the highest lower bound it reaches. */
export function bandOf(reduction: number): number {
  return REDUCTION_BANDS.find((b) => reduction >= b) ?? 0;
}
