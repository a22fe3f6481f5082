/** What `createPipeline` takes and gives: its options, the inputs of each moment, the pipeline itself. */
import type { BudgetConfig, BudgetLevel, ContextBudget } from '../budget/budget.ts';
import type { CacheRulesOptions } from '../cache/cost-model.ts';
import type { Dialect, Message, ToolDefinition } from '../messages/types.ts';
import type { BlobStore, Clock, IdGenerator, Summarizer, TokenCounter } from '../ports.ts';
import type { Recall } from '../recall/options.ts';
import type { RecallTools } from '../recall/tools.ts';
import type { AheadReport } from './engine/ahead.ts';
import type { PipelineRun, StageObserver } from './engine/runner.ts';
import type { PresetConfig, PresetName } from './presets/presets.ts';
import type { JournalEntry, PipelineState, StageReport } from './types.ts';

export interface PipelineOptions {
  /** @default 'default' */
  preset?: PresetName;
  /** Per-preset overrides; unknown keys throw `CtxError` naming the key. */
  config?: PresetConfig;
  /** @default the preset's (KosmoKrator's numbers for `default`, scaled to smaller windows) */
  budget?: Partial<BudgetConfig>;
  /** @default the preset's counter (calibrated o200k for `default`); always memoized */
  counter?: TokenCounter;
  /** @default the offline deterministic extractive summarizer (`createDeterministicSummarizer()`) */
  summarizer?: Summarizer;
  /** Where truncated tool outputs are spilled. @default none (no spill) */
  blobs?: BlobStore;
  /** @default the system clock */
  clock?: Clock;
  /** @default random ids */
  ids?: IdGenerator;
  /** Tool names whose calls and results no stage touches. @default [] */
  excludeTools?: string[];
  /**
   * Count with the counter's upper bound (estimate × (1 + its p95 error)) so the budget errs on the
   * safe side; counters without a bound are scaled by 1.15. @default false
   */
  conservative?: boolean;
  /** Called after every stage with its input and output (tests, debugging). */
  observe?: StageObserver;
  /**
   * Compaction prepared ahead of need (docs/compaction.md). `auto`: after a pre-flight at or above
   * warning, `ahead()` is started on its result between steps, and a step below the blocking level
   * never waits for a summary. `off`: only explicit `ahead()` calls prepare one. @default 'off'
   */
  ahead?: 'off' | 'auto';
  /**
   * Preparations ahead per compaction: once this many were started without a compaction applied (a
   * prepared one goes stale when the conversation rewrites what it covers), no more are started
   * until the compaction is due; then one more (instead of an inline wait below blocking), and if
   * that goes stale too the compaction runs inline. Bounds what an LLM summarizer is asked for: at
   * most `aheadLimit` + 1 summaries per compaction. An integer from 1 to 1,000. @default unlimited with the deterministic summarizer (the work is
   * local), 3 with any other
   */
  aheadLimit?: number;
  /** The recall tools, `createRecall()` (docs/recall.md); the budget counts them. @default off */
  recall?: Recall;
  /**
   * The provider's prompt-cache rules (read and write prices as shares of the input price, TTL,
   * minimum cached prefix, step), over the defaults of each run's dialect (`CACHE_RULES`; Anthropic's
   * without one). `default` defers rewrites of what the provider holds cached by these rules, and
   * every run prices its send with them (`run.cache`). @default the dialect's
   */
  cache?: CacheRulesOptions;
}

export interface PrepareInput {
  messages: readonly Message[];
  system?: string;
  tools?: readonly ToolDefinition[];
  state?: PipelineState;
  /** Provider rules applied to `send`. @default neutral pairing rules only */
  dialect?: Dialect;
  /**
   * The model the send goes to: where its family's prompt cache differs from the dialect's (GPT-5.6's
   * write premium, Claude Haiku 4.5's 4,096-token minimum, …), its rules are the ones priced; `cache`
   * overrides still win (docs/cache.md).
   */
  model?: string;
  signal?: AbortSignal;
}

export interface OverflowInput extends PrepareInput {
  error: unknown;
  /** 1-based attempt for the current user turn. @default state.overflowAttempts + 1 */
  attempt?: number;
}

export interface CompactInput extends PrepareInput {
  instructions?: string;
}

export interface PipelineEstimate {
  tokens: number;
  level: BudgetLevel;
  anchored: boolean;
  percentLeft: number;
  usable: number;
}

export interface Pipeline {
  readonly preset: PresetName;
  /** The resolved budget (levels, usable input). */
  readonly budget: ContextBudget;
  /** The counter every stage and `estimate` count with (memoized): a context view's per-item sizes. */
  readonly counter: TokenCounter;
  /** The recall tools' definitions and handlers, when the `recall` option is on. */
  readonly recall?: RecallTools;
  /** Pre-flight: everything the preset runs before an LLM call. Resets `state.overflowAttempts`. */
  prepare(input: PrepareInput): Promise<PipelineRun>;
  /** A tool result arriving (output truncation + spill). */
  admitToolResult(
    message: Message,
    input?: Omit<PrepareInput, 'messages'>,
  ): Promise<{ message: Message; report: StageReport; journal: JournalEntry[] }>;
  /** The provider said "context too long". */
  recoverOverflow(input: OverflowInput): Promise<PipelineRun & { retry: boolean; cleared?: boolean }>;
  /** Manual compaction, with optional focus instructions. */
  compact(input: CompactInput): Promise<PipelineRun>;
  /**
   * Prepares, between steps, the compaction the conversation will need (summary and memory
   * extraction), when it is near or above warning (docs/compaction.md); the pre-flight that reaches the compaction level
   * applies it if its input still starts with what it covers. Pass the last run's `messages` and
   * `state`. Resolves when the compaction is ready (or nothing was to prepare).
   */
  ahead(input: PrepareInput): Promise<AheadReport>;
  /**
   * The estimate of sending `messages`. A reported usage counts only when it answered the send
   * recorded in `state` (the `default` preset), so pass the state the messages came with.
   */
  estimate(input: {
    messages: readonly Message[];
    system?: string;
    tools?: readonly ToolDefinition[];
    state?: PipelineState;
  }): PipelineEstimate;
}
