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
  const lines: string[] = [];
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
  lines.push('', '### Goals', '', ...goalLines(cacheGoals(rows)));
  return lines.join('\n');
}
