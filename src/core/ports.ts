/**
 * Ports: the small interfaces through which every effect reaches the core. The core never
 * reads a clock, an env var, a file or the network by itself.
 */
import type { Message, ToolDefinition } from './messages/types.ts';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and fixtures. */
export function fixedClock(
  start: number | string,
): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = typeof start === 'string' ? Date.parse(start) : start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(ms) {
      t = ms;
    },
  };
}

export interface IdGenerator {
  next(prefix?: string): string;
}

/** Deterministic ids `prefix_1`, `prefix_2`, … */
export function sequentialIds(start = 1): IdGenerator {
  let n = start;
  return { next: (prefix = 'id') => `${prefix}_${n++}` };
}

export const randomIds: IdGenerator = {
  next: (prefix = 'id') => `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
};

/** Counts tokens of text and of whole messages. Implementations must be pure and synchronous. */
export interface TokenCounter {
  /** Stable name, e.g. `chars4`, `kosmokrator`, `cowagent`, `o200k`, `ctxkit-o200k`. */
  readonly name: string;
  countText(text: string): number;
  countMessage(message: Message): number;
}

/** What a summarizer is asked to do; the preset picks the prompt family. */
export type SummaryPurpose =
  | 'compaction' // 002 / 003 / default: summarise the old part of the conversation
  | 'sliding-window' // 001: summarise the dropped middle
  | 'manual-compact' // 001 `/compact`: whole history, primary model
  | 'memory-flush' // 000: trimmed turns → [DAILY] / [MEMORY]
  | 'tool-result' // 003: one tool result
  | 'tool-batch'; // 003: a batch of tool results

export interface ExtractedMemory {
  type: 'project' | 'user' | 'decision';
  title: string;
  content: string;
  class?: 'priority' | 'durable' | 'working';
  expiresDays?: number;
}

export interface SummarizeRequest {
  purpose: SummaryPurpose;
  /** Preset whose prompt family to use: `cowagent`, `co-cli`, `kosmokrator`, `tiancai`, `default`. */
  preset: string;
  messages: readonly Message[];
  /** A previous summary to update instead of starting from scratch. */
  previousSummary?: string;
  /**
   * The transcript the preset's prompt expects, already formatted and capped by the stage (002 §4.7,
   * 003 §5.6). LLM summarizers send it instead of serialising `messages` themselves; extractive ones
   * may ignore it.
   */
  transcript?: string;
  /** Focus instructions given with a manual compaction. */
  instructions?: string;
  /** Clip the answer to this many characters. */
  maxOutputChars?: number;
  /**
   * The conversation as the provider holds it cached from the agent's last send, for a summarizer
   * that asks on it (`Summarizer.prefix: 'cached'`); given only while that cache is warm and every
   * message to summarize is in it.
   */
  sent?: SentPrefix;
  signal?: AbortSignal;
}

/**
 * What the agent's last send held, as the model saw it: the system prompt, the tool schemas and the
 * messages (ctxkit's form; the adapters give the provider's). A summary call that starts with exactly
 * these is served from the provider's prompt cache; the summary stands for the first `upTo` messages.
 */
export interface SentPrefix {
  system?: string;
  tools?: readonly ToolDefinition[];
  messages: readonly Message[];
  upTo: number;
}

export interface SummarizeResult {
  /** The summary text (for `memory-flush`, the daily part). Empty means "nothing worth keeping". */
  summary: string;
  /** Long-term memories extracted in the same call (002 JSON `memories`, 000 `[MEMORY]` lines). */
  memories?: ExtractedMemory[];
  /** Tokens spent on the call, when the provider reports them. */
  usage?: { inputTokens: number; outputTokens: number };
  model?: string;
  /**
   * Set when a fallback answered because the primary summarizer failed (`withFallback`): the
   * primary's failure. The pipeline turns it into a `summary-fallback` event and a report detail.
   */
  fallback?: string;
}

export interface Summarizer {
  readonly name: string;
  /**
   * True for a summarizer that runs in the process at no charge (the deterministic one). A summarizer
   * without it is taken to be a paid model, whose answer is billed at the output price (5–8× input):
   * `default`'s compaction asks it for a short summary and keeps more of the conversation verbatim.
   */
  readonly local?: boolean;
  /**
   * `cached`: asks for a compaction's summary on the agent's last send (`SummarizeRequest.sent`), the
   * provider's cached prefix, with the instruction after it — as Claude Code does — instead of on a
   * transcript of the folded messages. The call must go to the agent's model with its tool schemas.
   */
  readonly prefix?: 'cached';
  /** Throws on failure (timeout, provider error, empty answer); stages turn that into a `failed` report. */
  summarize(request: SummarizeRequest): Promise<SummarizeResult>;
  /**
   * Optional: reads `messages` ahead of a `summarize` that is likely to receive them (the compaction
   * stage calls it above warning, below auto-compact), so that the call itself pays less at once. It
   * must not change any answer: what it keeps is a memo the summarizer checks before using.
   */
  ahead?(messages: readonly Message[]): void;
}

export interface BlobInfo {
  id: string;
  size: number;
  sha256: string;
  createdAt: number;
  /** Where a human or an agent can read it back: a file path, or a URL/route for the worker. */
  location: string;
}

/** Stores full tool outputs that were truncated, so nothing is lost. */
export interface BlobStore {
  put(id: string, content: string, options?: { createdAt?: number }): Promise<BlobInfo>;
  get(id: string): Promise<string | undefined>;
  /** Bytes `[start, end)` of the UTF-8 content. */
  getRange?(id: string, start: number, end?: number): Promise<string | undefined>;
  delete(id: string): Promise<void>;
  /** Deletes blobs created before `before` (ms since epoch); returns how many went. */
  cleanup(before: number): Promise<number>;
}
