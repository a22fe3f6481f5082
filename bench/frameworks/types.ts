/**
 * The shape every `bench/frameworks/<framework>.ts` module exports, so that `npm run bench:frameworks`
 * (bench/frameworks.ts) can run whichever modules exist and print one table:
 *
 *   export async function run(opts: FrameworkBenchOptions): Promise<FrameworkBenchRow[]>
 *
 * One row per (tool, window): ctxkit's hook and the framework's own tool on the same steps.
 */
export interface FrameworkBenchOptions {
  /** The trajectories folder (`../shared/data/trajectories` unless BENCH_DATA says otherwise). */
  data: string;
  /** Context windows to replay at, in tokens. */
  windows: readonly number[];
  /** Model calls (tool steps) per replayed session. */
  steps: number;
}

export interface FrameworkBenchRow {
  framework: string;
  /** `ctxkit` or the framework's own tool (`pruneMessages`, `TokenLimiterProcessor`…). */
  tool: string;
  window: number;
  /** Model calls measured. */
  steps: number;
  /** Mean tokens of the prompt sent per step (system + messages + tools, one counter for every row). */
  tokensSent: number;
  /** Largest prompt sent, in tokens. */
  maxTokensSent: number;
  /** Provider-rule violations over every prompt sent (checkInvariants with the model's dialect). */
  violations: number;
  /** Reference recall of what left the prompt (as `ctxcheck bench compaction`), when measured. */
  recall?: number;
  /** Added time per step in ms (the hook's own time), p50 and p99. */
  addedMsP50: number;
  addedMsP99: number;
  /** What a reader must know to read the row. */
  note?: string;
}
