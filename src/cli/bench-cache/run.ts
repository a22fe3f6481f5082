/**
 * `ctxcheck bench cache`: every session × window, ctxkit's incremental context (the whole history
 * passed every call, as framework hooks run it, with the dialect of each price table) beside the
 * reference managers, each send counted exactly (o200k) and priced with the provider's cache.
 * Returns rows; rendering is the command's job.
 */
import {
  type BudgetConfig,
  createContext,
  createPipeline,
  createTiktokenCounter,
  fixedClock,
  type Message,
  messageDigest,
  sequentialIds,
  type TokenCounter,
} from '../../core/index.ts';
import { createLedger, type SummaryCall, type Tally } from './ledger.ts';
import {
  type ExactSizing,
  type LastSend,
  type PaidMode,
  paidSummarizer,
  transcriptTokens,
} from './paid-summarizer.ts';
import { PRICE_TABLES, type PriceTable } from './prices.ts';
import { appendThenCompact, noManagement, slidingWindow } from './references.ts';
import type { CacheSession } from './sessions.ts';

/** The system prompt every manager sends (its tokens are the same for all). */
export const BENCH_SYSTEM = 'You are a coding agent.';
/** Time between two sends: well within every provider's TTL (the recordings carry no timestamps). */
const STEP_MS = 20_000;

export interface Timing {
  p50: number;
  p99: number;
  worst: number;
}

export interface CacheBenchRow {
  session: string;
  window: number;
  usable: number;
  /** Where ctxkit compacts, in tokens: the budget's auto-compact level, or `--level`'s. */
  ctxkitLevel: number;
  /** Where the references compact: the default budget's auto-compact level. */
  compactAt: number;
  steps: number;
  /** ctxkit, one run per price table (with that table's dialect and cache rules). */
  ctxkit: Partial<Record<PriceTable['id'], Tally>>;
  /**
   * The same with a paid model summarizer (its calls priced in `summaries`): asked on a transcript of
   * the folded messages, and on the agent's last send (`prefix: 'cached'`).
   */
  paid: Record<PaidMode, Partial<Record<PriceTable['id'], Tally>>>;
  append: Tally;
  slide: Tally;
  /** The whole history every step; absent when a send would exceed usable input. */
  none?: Tally;
  /** Wall-clock milliseconds of ctxkit's `prepare`, over its runs of this row. */
  timing: Timing;
}

export interface CacheBenchOptions {
  sessions: readonly CacheSession[];
  windows: readonly number[];
  tables: ReadonlyArray<PriceTable['id']>;
  /**
   * ctxkit's auto-compact level as a share of usable input, to price compacting earlier or later than
   * the default; the references keep the default level. @default the budget's
   */
  level?: number;
  onProgress?: (done: number, total: number, label: string) => void;
}

/** Exact o200k tokens per message object (and per content, for objects rebuilt with the same content). */
async function exactSizing(): Promise<ExactSizing> {
  const counter: TokenCounter = await createTiktokenCounter('o200k_base', {
    load: async () => await import('gpt-tokenizer/encoding/o200k_base'),
  });
  const byObject = new WeakMap<Message, number>();
  const byContent = new Map<string, number>();
  return {
    overhead: counter.countText(BENCH_SYSTEM),
    text: (t) => counter.countText(t),
    key: (m) => messageDigest(m),
    tokens(m) {
      let n = byObject.get(m);
      if (n !== undefined) return n;
      const key = messageDigest(m);
      n = byContent.get(key);
      if (n === undefined) {
        n = counter.countMessage(m);
        byContent.set(key, n);
      }
      byObject.set(m, n);
      return n;
    },
  };
}

function timing(ms: number[]): Timing {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), worst: s.at(-1) ?? 0 };
}

/**
 * The budget ctxkit runs with at `window`: the default, or with its auto-compact level at `level` ×
 * usable input (the warning level moved below it where it would lie above).
 */
export function benchBudget(window: number, level?: number): Partial<BudgetConfig> {
  if (level === undefined) return { contextWindow: window };
  const b = createPipeline({ budget: { contextWindow: window } }).budget;
  const autoCompactBuffer = Math.round(b.usable * (1 - level));
  return {
    contextWindow: window,
    reserveOutput: b.reserveOutput,
    warningBuffer: Math.max(b.warningBuffer, autoCompactBuffer),
    autoCompactBuffer,
    blockingBuffer: Math.min(b.blockingBuffer, autoCompactBuffer),
  };
}

async function runCtxkit(
  session: CacheSession,
  budget: Partial<BudgetConfig>,
  table: PriceTable,
  sizing: ExactSizing,
  times: number[],
  paid?: PaidMode,
): Promise<Tally> {
  const clock = fixedClock('2026-01-01T00:00:00Z');
  const calls: SummaryCall[] = [];
  let last: LastSend | undefined;
  const ctx = createContext({
    budget,
    dialect: table.dialect,
    ...(table.modelId ? { model: table.modelId } : {}),
    clock,
    ids: sequentialIds(),
    ...(paid ? { summarizer: paidSummarizer(paid, sizing, calls, () => last) } : {}),
  });
  const ledger = createLedger([table]);
  for (const i of session.steps) {
    clock.advance(STEP_MS);
    const started = performance.now();
    const run = await ctx.prepare(session.messages.slice(0, i), { system: BENCH_SYSTEM });
    if (!paid) times.push(performance.now() - started);
    const compacted = run.events.some((e) => e.type === 'compaction-end' && e.error === undefined);
    const send: Parameters<typeof ledger.add>[0] = {
      keys: run.send.map(sizing.key),
      sizes: run.send.map(sizing.tokens),
      overhead: sizing.overhead,
      compacted,
    };
    // Every summary asked for in this step is a paid call, used or not.
    const made = calls.splice(0);
    if (made.length > 0)
      send.summaryCall = {
        cached: made.reduce((a, c) => a + c.cached, 0),
        fresh: made.reduce((a, c) => a + c.fresh, 0),
        output: made.reduce((a, c) => a + c.output, 0),
        cacheable: made.every((c) => c.cacheable),
      };
    ledger.add(send);
    last = send;
  }
  return ledger.tally;
}

export async function runCacheBench(options: CacheBenchOptions): Promise<CacheBenchRow[]> {
  const sizing = await exactSizing();
  // The reference's summary instruction: the core's own compaction prompt with no conversation in it.
  const instruction = transcriptTokens({ purpose: 'compaction', preset: 'default', messages: [] }, sizing);
  const tables = options.tables.map((id) => PRICE_TABLES[id]);
  const rows: CacheBenchRow[] = [];
  const total = options.sessions.length * options.windows.length;
  for (const session of options.sessions)
    for (const window of options.windows) {
      const budget = createPipeline({ budget: { contextWindow: window } }).budget;
      const limits = { usable: budget.usable, compactAt: budget.autoCompact, instruction };
      const managers = {
        append: [appendThenCompact(limits, sizing), createLedger(tables)] as const,
        slide: [slidingWindow(limits, sizing), createLedger(tables)] as const,
        none: [noManagement(sizing), createLedger(tables)] as const,
      };
      let fits = true;
      for (const i of session.steps) {
        const history = session.messages.slice(0, i);
        for (const [manage, ledger] of Object.values(managers)) ledger.add(manage(history));
        const whole = sizing.overhead + history.reduce((a, m) => a + sizing.tokens(m), 0);
        if (whole > budget.usable) fits = false;
      }
      const times: number[] = [];
      const own = benchBudget(window, options.level);
      const ctxkit: CacheBenchRow['ctxkit'] = {};
      const paid: CacheBenchRow['paid'] = { transcript: {}, cached: {} };
      for (const table of tables) {
        ctxkit[table.id] = await runCtxkit(session, own, table, sizing, times);
        for (const mode of ['transcript', 'cached'] as const)
          paid[mode][table.id] = await runCtxkit(session, own, table, sizing, times, mode);
      }
      const row: CacheBenchRow = {
        session: session.name,
        window,
        usable: budget.usable,
        ctxkitLevel: createPipeline({ budget: own }).budget.autoCompact,
        compactAt: budget.autoCompact,
        steps: session.steps.length,
        ctxkit,
        paid,
        append: managers.append[1].tally,
        slide: managers.slide[1].tally,
        timing: timing(times),
      };
      if (fits) row.none = managers.none[1].tally;
      rows.push(row);
      options.onProgress?.(rows.length, total, `${session.name} @${window / 1000}K`);
    }
  return rows;
}

export interface CacheGoals {
  /** The largest ctxkit / append-then-compact cost ratio over every row and table. */
  worstRatio: number;
  worstAt: string;
  /** History rewrites outside compactions per 1,000 ctxkit steps, over every row and table. */
  rewritesPer1000: number;
  rewrites: number;
  steps: number;
}

export function cacheGoals(rows: readonly CacheBenchRow[]): CacheGoals {
  let worstRatio = 0;
  let worstAt = '';
  let rewrites = 0;
  let steps = 0;
  for (const r of rows)
    for (const [id, t] of Object.entries(r.ctxkit)) {
      const ratio = t!.cost[id]! / r.append.cost[id]!;
      if (ratio > worstRatio) {
        worstRatio = ratio;
        worstAt = `${r.session} @${r.window / 1000}K, ${id}`;
      }
      rewrites += t!.rewrites;
      steps += t!.steps;
    }
  return { worstRatio, worstAt, rewritesPer1000: steps > 0 ? (rewrites / steps) * 1000 : 0, rewrites, steps };
}
