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
import { type CompactionCase, loadCases } from './cases.ts';
import { countTokens, referenceRecall, salientReferences } from './measure.ts';
import { baselineStrategies, presetStrategy, type StrategyResult } from './strategies.ts';

export interface BenchRow {
  case: string;
  strategy: string;
  prefixTokens: number;
  tokens: number;
  reduction: number;
  recall: number;
  references: number;
}

export interface StrategyMean {
  strategy: string;
  cases: number;
  reduction: number;
  recall: number;
}

export interface CompactionBenchOptions {
  dataDir: string;
  /** Presets to run at fixed windows. */
  presets: readonly PresetName[];
  /** Fixed context windows (tokens) for every preset. */
  windows: readonly number[];
  /** Windows as a share of each prefix, for `default` (0.05 → at least 95% reduction). */
  shares: readonly number[];
  summarizer: Summarizer;
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
      });
  const prefixTokens = countTokens(c.prefix, counter);
  for (const share of o.shares) {
    const window = Math.max(2000, Math.floor(prefixTokens * share));
    out.push({
      strategy: `default @ ${Math.round(share * 100)}% of prefix`,
      messages: await presetStrategy('default', c.prefix, window, o.summarizer),
    });
  }
  return out;
}

export async function runCompactionBench(o: CompactionBenchOptions): Promise<CompactionBenchResult> {
  const counter = await createTiktokenCounter('o200k_base');
  const cases = loadCases(o.dataDir).filter((c) => !o.filter || c.id.includes(o.filter));
  const rows: BenchRow[] = [];
  for (const [i, c] of cases.entries()) {
    o.onProgress?.(i, cases.length, c.id);
    const refs = salientReferences(c.prefix, c.after);
    const prefixTokens = countTokens(c.prefix, counter);
    for (const s of await strategiesFor(c, o, counter)) {
      const tokens = countTokens(s.messages, counter);
      rows.push({
        case: c.id,
        strategy: s.strategy,
        prefixTokens,
        tokens,
        reduction: 1 - tokens / prefixTokens,
        recall: referenceRecall(refs, s.messages),
        references: refs.length,
      });
    }
  }
  o.onProgress?.(cases.length, cases.length, 'done');
  const byStrategy = new Map<string, BenchRow[]>();
  for (const r of rows) byStrategy.set(r.strategy, [...(byStrategy.get(r.strategy) ?? []), r]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const means = [...byStrategy.entries()].map(([strategy, rs]) => ({
    strategy,
    cases: rs.length,
    reduction: mean(rs.map((r) => r.reduction)),
    recall: mean(rs.map((r) => r.recall)),
  }));
  return { rows, means, cases: cases.length };
}
