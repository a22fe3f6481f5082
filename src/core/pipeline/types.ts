/**
 * The contract every pipeline stage keeps: a pure function `(messages, ctx) → StageResult` that never
 * mutates its input and returns the input array itself when it does nothing.
 */

import type { ContextBudget } from '../budget/budget.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import type { BlobStore, Clock, ExtractedMemory, IdGenerator, Summarizer, TokenCounter } from '../ports.ts';
import type { CacheContext, CacheState } from './engine/cache-state.ts';
import type { SentRecord } from './engine/sent.ts';

export type StageStatus = 'noop' | 'applied' | 'skipped' | 'failed';

export interface StageReport {
  stage: string;
  status: StageStatus;
  tokensBefore: number;
  tokensAfter: number;
  /** Why it was skipped or what it did, in a few words. */
  detail?: string;
  /** The error message when `failed`. */
  error?: string;
  /** Tokens spent calling a summarizer in this stage. */
  summarizerUsage?: { inputTokens: number; outputTokens: number };
}

export type JournalAction =
  | 'removed' // the message is no longer sent
  | 'replaced' // its content was replaced by a placeholder / superseded notice
  | 'truncated' // part of its content was cut
  | 'archived' // hidden from the agent (agentVisible=false) behind a digest
  | 'summarized' // folded into a summary message
  | 'spilled' // full content written to a BlobStore
  | 'inserted' // a message ctxkit added (summary, digest, marker)
  | 'repaired'; // changed by the invariant repair step

export interface JournalEntry {
  stage: string;
  action: JournalAction;
  /** The affected message (for `inserted`, the new one). */
  messageId: string;
  /** The message that now stands for it: a summary, digest or the placeholder itself. */
  replacementId?: string;
  tokensBefore: number;
  tokensAfter: number;
  /**
   * Where the full content still is: `session-log` (the session store keeps every message),
   * `blob:<id>` (a BlobStore), `memory:<id>`/`daily:<date>` (long-term memory).
   */
  location: string;
  /** How to get it back, for a human or the agent. */
  recover: string;
  /**
   * The ref the stub or summary standing for it carries (`contentRef` of what the stage replaced, or a
   * summary's `spanRef`): the recall tools' `reread(ref)` returns the message. Set when recall is on.
   */
  ref?: string;
}

export type PipelineEvent =
  | { type: 'compaction-start'; stage: string; trigger: string; messages: number; tokens: number }
  | {
      type: 'compaction-end';
      stage: string;
      trigger: string;
      messagesBefore: number;
      messagesAfter: number;
      tokensBefore: number;
      tokensAfter: number;
      error?: string;
    }
  | { type: 'summary-pending'; stage: string; targetId: string; turnsCompacted: number }
  | { type: 'summary-applied'; stage: string; targetId: string }
  | { type: 'memory-extracted'; stage: string; count: number }
  | { type: 'breaker-open'; failures: number }
  | { type: 'escalated'; stage: string; reason: string }
  /** The LLM summary failed and a fallback summarizer answered instead (`SummarizeResult.fallback`). */
  | { type: 'summary-fallback'; stage: string; reason: string }
  /**
   * Which summary a compaction used when compaction ahead of need is on (`pipeline.ahead`): `ahead`
   * (prepared between steps; `staleMessages` arrived since and were carried verbatim), `inline`
   * (computed in this step; `reason` says why the prepared one was not used) or `pending` (the
   * prepared one is still being computed and the window is not exceeded: this step did not wait).
   */
  | {
      type: 'compaction-source';
      stage: string;
      source: 'ahead' | 'inline' | 'pending';
      staleMessages?: number;
      fingerprint?: string;
      reason?: string;
    };

/** A summary computed in the background (000 §1.8): applied to `targetId` from the next run on. */
export interface PendingInjection {
  /** Id of the first kept user message whose first text part receives the summary. */
  targetId: string;
  /** The text of that part when the injection was planned. */
  originalText: string;
  turnsCompacted: number;
  /** Undefined while the summary is still being computed. */
  summary?: string;
}

/** What a session carries from one pipeline run to the next. Stages return an updated copy. */
export interface PipelineState {
  /** Consecutive compaction failures (002 §4.8). */
  compactionFailures: number;
  pendingInjections: PendingInjection[];
  /** Last compaction summary, for iterative updates. */
  lastSummary?: string;
  /** Tokens right after the last compaction, for the loop guard. */
  lastCompactionTokens?: number;
  /** Overflow recoveries already tried for the current user turn. */
  overflowAttempts: number;
  /**
   * Keys of the message texts already flushed to memory, oldest first (000 §2.3, CowAgent's MD5 set;
   * here the first 16 hex digits of SHA-256, the newest `FLUSHED_LIMIT` kept). A text flushed by a
   * trim, an overflow or the daily summary is never flushed again. Absent: nothing flushed yet.
   */
  flushed?: string[];
  /** Fingerprint of the last run's working context and send: a usage answering it anchors the estimate. */
  sent?: SentRecord;
  /** The last send as the provider's prompt cache saw it (when, its message digests, the growth per send). */
  cache?: CacheState;
}

export const INITIAL_STATE: PipelineState = {
  compactionFailures: 0,
  pendingInjections: [],
  overflowAttempts: 0,
};

export interface StageContext {
  /** Memoized counter; count with `countMessages` helpers, never by hand. */
  counter: TokenCounter;
  budget: ContextBudget;
  clock: Clock;
  ids: IdGenerator;
  summarizer: Summarizer;
  blobs?: BlobStore;
  /** System prompt and tool schemas, for the estimate. */
  system?: string;
  tools?: readonly ToolDefinition[];
  /** Tool names whose results no stage may touch. */
  excludeTools: ReadonlySet<string>;
  state: PipelineState;
  /** Preset name, passed to the summarizer to pick prompts. */
  preset: string;
  signal?: AbortSignal;
  /** Recall tools are on (`recall` option): stubs and summaries name their ref as `reread('…')`. */
  recall?: boolean;
  /** The reported usage the run's estimate may rest on (see estimate.ts): its message id. Absent: stages count. */
  anchor?: { id: string };
  /** The provider's prompt cache: what of the input it holds, and whether rewriting that is free now. */
  cache?: CacheContext;
}

export interface StageResult {
  messages: Message[];
  report: StageReport;
  journal: JournalEntry[];
  events: PipelineEvent[];
  /** Updated session state, when the stage changed it. */
  state?: PipelineState;
  /** Memories extracted in the same pass (compaction with memory extraction, 000 flush). */
  memories?: ExtractedMemory[];
  /** Memory flushes (000 §2.3): daily text for the storage layer to append, with the messages it covers. */
  flushes?: MemoryFlush[];
  /** Why the stage changed messages the provider held cached (the release or the cost model's quote). */
  rewrite?: string;
  /** Tokens the stage would have shed by changing cached messages, left for a compaction or cold cache. */
  deferred?: number;
}

/** One 000 memory flush: the daily part of the summary of the trimmed / overflowed messages. */
export interface MemoryFlush {
  /** `trim` → `## Trimmed Context`, `overflow` → `## Context Overflow Recovery` (000 §2.3). */
  reason: 'trim' | 'overflow';
  /** The daily text (LLM answer or the rule-based fallback); never empty. */
  summary: string;
  messageIds: string[];
}

export interface Stage {
  readonly name: string;
  run(messages: readonly Message[], ctx: StageContext): StageResult | Promise<StageResult>;
  /**
   * Work the stage may do ahead, on a run where its level is near but not reached (compaction: above
   * warning, below auto-compact), so that the run that does apply pays less at once. It must not
   * change any result: what it keeps is a memo the stage's `run` checks before using.
   */
  ahead?(messages: readonly Message[], ctx: Omit<StageContext, 'state'>): void;
  /**
   * Compaction prepared ahead of need (`compaction-ahead.ts`): the stage's result on `messages` as if
   * the messages still to come before its trigger were already there (their room kept free), and the
   * loop guard's line the result, with those messages, must stay under to be applied.
   */
  prepare?(
    messages: readonly Message[],
    ctx: StageContext,
  ): Promise<{ result: StageResult; guardLine: number }>;
}
