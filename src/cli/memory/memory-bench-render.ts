/**
 * The text of `ctxcheck bench memory`: the recall table (per category and mode, R@5 and R@10 with
 * their bootstrap intervals), the summary lines, latency, and the weight selection when it ran.
 */
import { LOCOMO_CATEGORIES } from './locomo.ts';
import type { CategoryRow, MemoryBenchResult, RecallCell } from './locomo-bench.ts';
import type { SelectionObjective, SelectionResult } from './locomo-selection.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

const withCi = (x: number, ci: { low: number; high: number } | undefined) =>
  ci ? `${pct(x)} (${pct(ci.low)}–${pct(ci.high)})` : pct(x);

function renderRow(label: string, r: CategoryRow, modes: readonly string[]): string {
  const cells = modes.flatMap((m) => {
    const c = r.recall[m];
    return [withCi(c?.at5 ?? 0, c?.ci5), withCi(c?.at10 ?? 0, c?.ci10)];
  });
  return `| ${label} | ${r.questions} | ${cells.join(' | ')} |`;
}

export function renderMemoryBench(result: BenchMemoryResult): string {
  const lines = [
    `LoCoMo evidence recall (%), ${result.conversations} conversations, ${result.turns} turns, embedder ${result.embedder}; (95 % bootstrap interval over the questions)`,
    '',
    `| category | questions | ${result.modes.flatMap((m) => [`${m} @5`, `${m} @10`]).join(' | ')} |`,
    `|---|---:|${result.modes.map(() => '---:|---:|').join('')}`,
  ];
  for (const r of result.rows.filter((x) => x.category !== 5))
    lines.push(renderRow(`${r.category} ${LOCOMO_CATEGORIES[r.category] ?? ''}`.trim(), r, result.modes));
  lines.push(renderRow('**1–4 all**', result.overall, result.modes));
  for (const r of result.rows.filter((x) => x.category === 5))
    lines.push(renderRow('5 adversarial (separate)', r, result.modes));
  if (result.skippedNoEvidence > 0)
    lines.push('', `${result.skippedNoEvidence} questions skipped: no evidence id names a turn.`);
  if (result.facts)
    lines.push(
      '',
      `model facts: ${result.facts.facts} written before the questions${result.facts.failedSessions > 0 ? `; ${result.facts.failedSessions} sessions failed (they have none), first: ${result.facts.firstError ?? '?'}` : ''}`,
    );
  const s = result.summary;
  lines.push('', `default: R@5 ${pct(s.default.at5)}, R@10 ${pct(s.default.at10)}`);
  for (const [mode, cats] of Object.entries(s.at10ByCategory))
    lines.push(
      `${mode} R@10 by category: ${Object.entries(cats)
        .map(([c, v]) => `${c} ${LOCOMO_CATEGORIES[Number(c)] ?? ''} ${pct(v)}`)
        .join(', ')}`,
    );
  if (s.default.at10 > 0 && s.bm25)
    lines.push(
      `default / plain BM25 at 10: ${(s.default.at10 / s.bm25.at10).toFixed(2)}×; keyword / plain BM25: ${(
        (s.keyword?.at10 ?? 0) / s.bm25.at10
      ).toFixed(2)}×`,
    );
  for (const [mode, l] of Object.entries(result.latency))
    lines.push(
      `${mode} search, ${l.searches} searches over ${l.turns} turns (${l.chunks} chunks with their units; query embedding excluded): wall p50 ${ms(l.p50)}, p95 ${ms(l.p95)}, p99 ${ms(l.p99)}, worst ${ms(l.worst)}; CPU p50 ${ms(l.cpu.p50)}, p95 ${ms(l.cpu.p95)}, p99 ${ms(l.cpu.p99)}, worst ${ms(l.cpu.worst)}`,
    );
  lines.push(`embeddings: ${s.embeddings.cached} from the cache, ${s.embeddings.embedded} embedded`);
  return lines.join('\n');
}

export interface BenchMemorySummary {
  /** Categories 1–4, the configuration a user gets without options. */
  default: RecallCell;
  keyword?: RecallCell;
  bm25?: RecallCell;
  /** R@10 per category (1–5), by mode. */
  at10ByCategory: Record<string, Record<string, number>>;
  embeddings: { cached: number; embedded: number };
}

export interface BenchMemoryResult extends MemoryBenchResult {
  summary: BenchMemorySummary;
  seconds: number;
}

export interface BenchMemoryResult extends MemoryBenchResult {
  summary: BenchMemorySummary;
  /** The leave-one-conversation-out weight selection (`--loco`). */
  selection?: SelectionResult & { objective: SelectionObjective };
  seconds: number;
}

const OBJECTIVES: Record<SelectionObjective, string> = {
  questions: 'mean R@10 over the questions of categories 1–4',
  categories: 'mean R@10 over the categories 1–4, each counting alike',
  goals: 'the mean of R@10 over the questions of categories 1–4 and over the multi-hop ones',
};

const weightsText = (w: Record<string, number | null>) =>
  Object.entries(w)
    .map(([k, v]) => `${k} ${v ?? 'same'}`)
    .join(', ');

/** The selection's folds, its pooled held-out recall and the weights it picks on every conversation. */
export function renderSelection(s: NonNullable<BenchMemoryResult['selection']>): string {
  const lines = [
    '',
    `Weight selection, leave one conversation out (objective: ${OBJECTIVES[s.objective]}; every fold starts from the weights before units, all unit and signal weights 0):`,
    '',
    '| held out | R@5 | R@10 | weights chosen on the other conversations |',
    '|---|---:|---:|---|',
  ];
  for (const f of s.folds)
    lines.push(`| ${f.heldOut} | ${pct(f.heldOutAt5)} | ${pct(f.heldOutAt10)} | ${weightsText(f.weights)} |`);
  const cats = Object.entries(s.pooled.byCategory)
    .map(([c, v]) => `${c} ${LOCOMO_CATEGORIES[Number(c)] ?? ''} ${pct(v.at5)}/${pct(v.at10)}`)
    .join(', ');
  lines.push(
    '',
    `held out, pooled: R@5 ${pct(s.pooled.at5)}, R@10 ${pct(s.pooled.at10)}; by category (R@5/R@10): ${cats}`,
    `chosen on all ${s.folds.length} conversations: ${weightsText(s.chosen)}`,
  );
  return lines.join('\n');
}
