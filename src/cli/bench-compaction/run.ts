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
import { newestStepStart } from '../../core/pipeline/stages/compaction-cut.ts';
import { type CompactionCase, loadCases, loadHeldOutCases } from './cases.ts';
import { earlyFacts, factRecall, summaryText } from './facts.ts';
import { countTokens, referenceRecall, salientReferences } from './measure.ts';
import {
  type AheadTally,
  baselineStrategies,
  presetStrategy,
  type StrategyResult,
  usableInput,
} from './strategies.ts';

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
  /**
   * Share of the early history's facts (`facts.ts`) its summary answers alone; absent when the
   * strategy writes no summary.
   */
  facts?: number;
  /** How many facts the early history of the cut has. */
  factCount?: number;
  /** Tokens of the summary the facts were read from. */
  summaryTokens?: number;
  /** The compacted context is larger (o200k) than the input the window allows. */
  overBudget: boolean;
  /**
   * Tokens of the leading system messages and of the newest step (the last assistant call and the
   * results it answers): what no strategy that keeps the system prompt and the current step can shed,
   * so no reduction above `1 − fixedTokens / prefixTokens` is reachable on this cut.
   */
  fixedTokens: number;
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
  /** Mean share of early-history facts answered from the summary, over the cases that have one. */
  facts?: number;
  /** Mean summary tokens over those cases. */
  summaryTokens?: number;
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
  /** Compaction prepared ahead (`pipeline.ahead` one step before each cut), then applied. @default false */
  ahead?: boolean;
  onProgress?: (done: number, total: number, label: string) => void;
}

export interface CompactionBenchResult {
  rows: BenchRow[];
  means: StrategyMean[];
  /** Issue 9's goals for the `default` preset, per group of cuts. */
  goals: GoalResult[];
  cases: number;
  /** With `ahead`: preset runs, and which summary their compaction used. */
  ahead?: AheadTally;
}

async function strategiesFor(
  c: CompactionCase,
  o: CompactionBenchOptions,
  counter: TokenCounter,
  tally: AheadTally | undefined,
): Promise<StrategyResult[]> {
  const out = baselineStrategies(c, counter, []);
  for (const preset of o.presets)
    for (const window of o.windows)
      out.push({
        strategy: `${preset} @ ${window / 1000}k`,
        messages: await presetStrategy(preset, c.prefix, window, o.summarizer, tally),
        budget: usableInput(window),
      });
  const prefixTokens = countTokens(c.prefix, counter);
  for (const share of o.shares) {
    const window = Math.max(MIN_SHARE_WINDOW, Math.floor(prefixTokens * share));
    out.push({
      strategy: `default @ ${Math.round(share * 100)}% of prefix`,
      messages: await presetStrategy('default', c.prefix, window, o.summarizer, tally),
      budget: usableInput(window),
    });
  }
  return out;
}

export async function runCompactionBench(o: CompactionBenchOptions): Promise<CompactionBenchResult> {
  // A literal import, as bench cache has: the bundled CLI loads it as its own chunk, and a missing
  // gpt-tokenizer is named as the CLI names any optional package.
  const counter = await createTiktokenCounter('o200k_base', {
    load: async () => await import('gpt-tokenizer/encoding/o200k_base'),
  });
  const all = o.heldOut ? loadHeldOutCases(o.dataDir) : loadCases(o.dataDir);
  const cases = all.filter((c) => !o.filter || c.id.includes(o.filter));
  const rows: BenchRow[] = [];
  const tally: AheadTally | undefined = o.ahead ? { runs: 0, ahead: 0, inline: 0, pending: 0 } : undefined;
  for (const [i, c] of cases.entries()) {
    o.onProgress?.(i, cases.length, c.id);
    const refs = salientReferences(c.prefix, c.after);
    const facts = earlyFacts(c.prefix);
    const prefixTokens = countTokens(c.prefix, counter);
    const lead = c.prefix.findIndex((m) => m.role !== 'system');
    const head = lead < 0 ? c.prefix.length : lead;
    const fixedTokens =
      countTokens(c.prefix.slice(0, head), counter) +
      countTokens(c.prefix.slice(newestStepStart(c.prefix, head)), counter);
    for (const s of await strategiesFor(c, o, counter, tally)) {
      const tokens = countTokens(s.messages, counter);
      const summary = summaryText(s.messages);
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
        ...(summary !== undefined
          ? { facts: factRecall(facts, summary), summaryTokens: counter.countText(summary) }
          : {}),
        factCount: facts.length,
        overBudget: s.budget !== undefined && tokens > s.budget,
        fixedTokens,
      });
    }
  }
  o.onProgress?.(cases.length, cases.length, 'done');
  const sources = [...new Set(rows.map((r) => r.source))];
  const production = rows.filter((r) => r.cut === 'production');
  const runs = rows.filter((r) => r.cut !== 'production');
  const groups: Array<[string, BenchRow[]]> = [['all', rows]];
  if (production.length > 0 && runs.length > 0)
    groups.push([PRODUCTION_GROUP, production], [RUNS_GROUP, runs]);
  if (sources.length > 1) for (const g of sources) groups.push([g, rows.filter((r) => r.source === g)]);
  return {
    rows,
    means: groups.flatMap(([g, rs]) => meansOf(rs, g)),
    goals: groups.flatMap(([g, rs]) => goalsOf(rs, g)),
    cases: cases.length,
    ...(tally ? { ahead: tally } : {}),
  };
}

/** Issue 9's goals for the `default` preset: at least `band` reduction with a mean recall of `recall`. */
export const COMPACTION_GOALS = [
  { band: 0.95, recall: 0.75 },
  { band: 0.8, recall: 0.95 },
] as const;

export interface GoalResult {
  group: string;
  band: number;
  /** Mean recall the goal asks for. */
  target: number;
  /** Cut points where the band is reachable at all (system prompt + newest step under 1 − band). */
  cases: number;
  /** Cut points left out: their system prompt and newest step alone are more than `1 − band` of the prefix. */
  unreachable: number;
  /** The `default` strategy with the best mean recall among those shedding ≥ band on every reachable cut, within the window. */
  strategy?: string;
  reduction?: number;
  minReduction?: number;
  recall?: number;
  met: boolean;
}

/** Evaluates `COMPACTION_GOALS` over the `default` preset's strategies (fixed windows and shares). */
export function goalsOf(rows: readonly BenchRow[], group: string): GoalResult[] {
  return COMPACTION_GOALS.map(({ band, recall: target }) => {
    const reachable = rows.filter((r) => 1 - r.fixedTokens / r.prefixTokens >= band);
    const cases = new Set(reachable.map((r) => r.case)).size;
    const unreachable = new Set(rows.map((r) => r.case)).size - cases;
    const candidates = meansOf(
      reachable.filter((r) => r.strategy.startsWith('default @')),
      group,
    ).filter((m) => m.cases === cases && m.minReduction >= band && m.overBudget === 0);
    const best = candidates.sort((a, b) => b.recall - a.recall)[0];
    const out: GoalResult = { group, band, target, cases, unreachable, met: false };
    if (best === undefined || cases === 0) return out;
    return {
      ...out,
      strategy: best.strategy,
      reduction: best.reduction,
      minReduction: best.minReduction,
      recall: best.recall,
      met: best.recall >= target,
    };
  });
}

/** Mean reduction, smallest reduction and mean recall per strategy, in first-seen strategy order. */
export function meansOf(rows: readonly BenchRow[], group: string): StrategyMean[] {
  const byStrategy = new Map<string, BenchRow[]>();
  for (const r of rows) byStrategy.set(r.strategy, [...(byStrategy.get(r.strategy) ?? []), r]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return [...byStrategy.entries()].map(([strategy, rs]) => {
    const summarized = rs.filter((r) => r.facts !== undefined);
    return {
      strategy,
      group,
      cases: rs.length,
      reduction: mean(rs.map((r) => r.reduction)),
      minReduction: Math.min(...rs.map((r) => r.reduction)),
      recall: mean(rs.map((r) => r.recall)),
      ...(summarized.length > 0
        ? {
            facts: mean(summarized.map((r) => r.facts!)),
            summaryTokens: mean(summarized.map((r) => r.summaryTokens!)),
          }
        : {}),
      overBudget: rs.filter((r) => r.overBudget).length,
    };
  });
}

/** Reduction bands the means are grouped by (lower bounds, best first). */
export const REDUCTION_BANDS = [0.95, 0.8, 0.5, 0] as const;

/** The band of a mean reduction: the highest lower bound it reaches. */
export function bandOf(reduction: number): number {
  return REDUCTION_BANDS.find((b) => reduction >= b) ?? 0;
}
