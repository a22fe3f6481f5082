/** The incremental context's shapes: its calls, runs, options and persisted state (see `context.ts`). */
import type { Dialect, Message, ToolDefinition } from '../../messages/types.ts';
import type { Pipeline, PipelineOptions } from '../pipeline.ts';
import type { PipelineState } from '../types.ts';
import type { AheadReport } from './ahead.ts';
import type { PipelineRun } from './runner.ts';

export type HistoryMatch = 'new' | 'continued' | 'unchanged' | 'from-send' | 'rebased' | 'restarted';

export interface ContextCall {
  system?: string;
  tools?: readonly ToolDefinition[];
  /** @default the context's dialect */
  dialect?: Dialect;
  /** @default the context's model */
  model?: string;
  signal?: AbortSignal;
}

export interface ContextRun extends PipelineRun {
  /** How the history related to what the context had seen (see the module head). */
  match: HistoryMatch;
  /** How many messages of the history were fed to the pipeline this call. */
  fed: number;
}

/** A context's state as JSON (`ctx.toJSON()`), to persist between requests and resume with. */
export interface ContextState {
  version: 1;
  /** Content digests of the history taken in, in order. */
  seen: string[];
  /** The working context the pipeline keeps. */
  working: Message[];
  /** For each working message, the position in the history it stands for (-1: made by ctxkit). */
  origin: number[];
  pipeline: PipelineState;
}

export interface ContextOptions extends PipelineOptions {
  /** Provider rules `send` is repaired for. @default neutral pairing rules */
  dialect?: Dialect;
  /** The model the sends go to: its prompt-cache rules are priced (`PrepareInput.model`). */
  model?: string;
  /** A state from `toJSON()`, to resume a conversation. */
  state?: ContextState;
  /**
   * Earlier calls kept as points to go back to on an edit or a rewind (1–64), spread over the history.
   * @default 8
   */
  checkpoints?: number;
}

export interface IncrementalContext {
  readonly pipeline: Pipeline;
  /** Pre-flight over the caller's whole history; only what is new to the context is fed. */
  prepare(history: readonly Message[], call?: ContextCall): Promise<ContextRun>;
  /** The provider said "context too long": recover the working context; retry when `retry`. */
  recoverOverflow(error: unknown, call?: ContextCall): Promise<ContextRun & { retry: boolean }>;
  /** Manual compaction of the working context, with optional focus instructions. */
  compact(call?: ContextCall & { instructions?: string }): Promise<ContextRun>;
  /**
   * Prepares the next compaction on the working context between steps (`pipeline.ahead`); the call
   * that reaches the compaction level applies it if what it covers is unchanged.
   */
  ahead(call?: ContextCall): Promise<AheadReport>;
  /** The pipeline state to carry (what `toJSON().pipeline` holds). */
  state(): PipelineState;
  toJSON(): ContextState;
}
