/** Markdown tables of `ctxcheck bench cache`: one row per session × window, the goals at the end. */
import type { Tally } from './ledger.ts';
import { PRICE_TABLES, type PriceTable } from './prices.ts';
import { type CacheBenchRow, type CacheGoals, cacheGoals } from './run.ts';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const usd = (x: number) => `$${x.toFixed(2)}`;
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '—');
const ms = (x: number) => x.toFixed(1);

function cell(t: Tally | undefined, id: string, append: Tally): string {
  if (!t) return '—';
  return `${usd(t.cost[id]!)} (${ratio(t.cost[id]!, append.cost[id]!)})`;
}

/** Rewrites outside compactions, and compactions, of one tally. */
function moves(t: Tally | undefined): string {
  return t ? `${t.rewrites} / ${t.compactions}` : '—';
}

export const GOAL_RATIO = 1;
export const GOAL_REWRITES_PER_1000 = 29;

export function goalLines(g: CacheGoals): string[] {
  const ratioMet = g.worstRatio <= GOAL_RATIO;
  const rewritesMet = g.rewritesPer1000 <= GOAL_REWRITES_PER_1000;
  return [
    `- ctxkit ≤ ${GOAL_RATIO.toFixed(1)}× append-then-compact on every session, window and price table: **${ratioMet ? 'met' : 'missed'}** (worst ${g.worstRatio.toFixed(3)}×, ${g.worstAt})`,
    `- history rewrites outside compactions ≤ ${GOAL_REWRITES_PER_1000} per 1,000 steps: **${rewritesMet ? 'met' : 'missed'}** (${g.rewrites} in ${int(g.steps)} steps, ${g.rewritesPer1000.toFixed(1)} per 1,000)`,
  ];
}

export function renderCacheBench(
  rows: readonly CacheBenchRow[],
  tables: ReadonlyArray<PriceTable['id']>,
): string {
  const lines: string[] = levelLines(rows);
  for (const id of tables) {
    const t = PRICE_TABLES[id];
    lines.push(
      '',
      `### ${t.model} prices (input $${t.inputPerMillion}/M, cache reads ${t.rules.read}×, writes ${t.rules.write}×; cost and × append-then-compact)`,
      '',
      '| session | window | steps | ctxkit | append-then-compact | sliding window | no management | ctxkit hit | append hit | ctxkit rewrites / compactions | append compactions | ctxkit tokens | append tokens |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of rows) {
      const k = r.ctxkit[id];
      lines.push(
        `| ${r.session} | ${r.window / 1000}K | ${r.steps} | ${cell(k, id, r.append)} | ${usd(r.append.cost[id]!)} | ${cell(r.slide, id, r.append)} | ${cell(r.none, id, r.append)} | ${k ? pct(k.cached[id]! / k.sent) : '—'} | ${pct(r.append.cached[id]! / r.append.sent)} | ${moves(k)} | ${r.append.compactions} | ${k ? int(k.sent) : '—'} | ${int(r.append.sent)} |`,
      );
    }
  }
  lines.push(...summaryTables(rows, tables));
  lines.push(
    '',
    '### ctxkit pre-flight time (ms, wall clock, both runs of each row)',
    '',
    '| session | window | p50 | p99 | worst |',
    '|---|---:|---:|---:|---:|',
  );
  for (const r of rows)
    lines.push(
      `| ${r.session} | ${r.window / 1000}K | ${ms(r.timing.p50)} | ${ms(r.timing.p99)} | ${ms(r.timing.worst)} |`,
    );
  lines.push('', '### Goals', '', ...goalLines(cacheGoals(rows)), ...withCallsLines(rows, tables));
  return lines.join('\n');
}

/** Where ctxkit compacts, when `--level` moved it from where the references do. */
function levelLines(rows: readonly CacheBenchRow[]): string[] {
  const moved = rows.filter((r) => r.ctxkitLevel !== r.compactAt);
  if (moved.length === 0) return [];
  const windows = [...new Map(moved.map((r) => [r.window, r])).values()];
  const at = (n: number, r: CacheBenchRow) => `${int(n)} (${pct(n / r.usable)})`;
  return [
    '',
    `ctxkit compacts at ${windows.map((r) => `${at(r.ctxkitLevel, r)} @${r.window / 1000}K`).join(', ')} of usable input (\`--level\`); append-then-compact at the default level, ${windows.map((r) => `${at(r.compactAt, r)} @${r.window / 1000}K`).join(', ')}.`,
  ];
}

/** A manager's sends and summarizer calls, in dollars. */
const withCalls = (t: Tally, id: string) => t.cost[id]! + t.summaries[id]!;

/**
 * The rows where a manager compacted, with each compaction's summarizer call priced: ctxkit's default
 * (the local summary, no call), ctxkit with a paid model asked on a transcript and on the cached
 * prefix, and the reference with its call on the cached history.
 */
function summaryTables(rows: readonly CacheBenchRow[], tables: ReadonlyArray<PriceTable['id']>): string[] {
  const lines: string[] = [];
  const compacting = rows.filter(
    (r) => r.append.compactions > 0 || r.paid.cached[tables[0]!]!.compactions > 0,
  );
  for (const id of tables) {
    const t = PRICE_TABLES[id];
    lines.push(
      '',
      `### With each compaction's summarizer call, ${t.model} prices (output $${t.outputPerMillion}/M; sends and calls, × append-then-compact with its calls)`,
      '',
      '| session | window | ctxkit, local summary (default) | ctxkit + model, transcript | ctxkit + model, cached prefix | append-then-compact + its calls | calls: ctxkit / append | call cost: transcript / cached / append |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of compacting) {
      const ref = withCalls(r.append, id);
      const cell = (x: number) => `${usd(x)} (${ratio(x, ref)})`;
      const tr = r.paid.transcript[id]!;
      const ca = r.paid.cached[id]!;
      lines.push(
        `| ${r.session} | ${r.window / 1000}K | ${cell(r.ctxkit[id]!.cost[id]!)} | ${cell(withCalls(tr, id))} | ${cell(withCalls(ca, id))} | ${usd(ref)} | ${ca.summaryCalls} / ${r.append.summaryCalls} | ${usd(tr.summaries[id]!)} / ${usd(ca.summaries[id]!)} / ${usd(r.append.summaries[id]!)} |`,
      );
    }
  }
  return lines;
}

/** The worst ratio of each ctxkit variant with the calls priced (reported, not a goal of the issue). */
function withCallsLines(rows: readonly CacheBenchRow[], tables: ReadonlyArray<PriceTable['id']>): string[] {
  const worst = (pick: (r: CacheBenchRow, id: string) => number) => {
    let w = 0;
    let at = '';
    for (const r of rows)
      for (const id of tables) {
        const x = pick(r, id) / withCalls(r.append, id);
        if (x > w) {
          w = x;
          at = `${r.session} @${r.window / 1000}K, ${id}`;
        }
      }
    return `at most ${w.toFixed(3)}× (${at})`;
  };
  return [
    `- with each manager's summarizer call priced (not a goal): ctxkit's default, local summary, ${worst((r, id) => r.ctxkit[id as PriceTable['id']]!.cost[id]!)}; with a model asked on a transcript ${worst((r, id) => withCalls(r.paid.transcript[id as PriceTable['id']]!, id))}; on the cached prefix ${worst((r, id) => withCalls(r.paid.cached[id as PriceTable['id']]!, id))}`,
  ];
}
