/**
 * The incremental context the framework hooks run over, until the core's `createContext` lands (the
 * incremental context issue): the caller hands over its whole history on every call; the feed finds
 * what it has already taken in (content digests, as the proxy matches a session log), runs the
 * pipeline on its own working context plus the new suffix, and returns the send. Messages a stage
 * left alone are the objects the caller gave (so the framework adapters return the caller's originals).
 * A history that no longer starts with what the feed has seen (the caller rewrote it) starts it over.
 *
 * Internal: the hooks will call `createContext(options).prepare(history, …)` instead, with the same shape.
 */
import {
  createPipeline,
  type Dialect,
  type JsonValue,
  type Message,
  messageDigest,
  type PipelineOptions,
  type PipelineRun,
  type PipelineState,
} from '../core/index.ts';

export interface FeedOptions extends PipelineOptions {
  /** Provider rules the send is repaired for. @default neutral pairing rules */
  dialect?: Dialect;
  /** A state saved by `state()`, to resume. */
  state?: PipelineState;
}

export interface PrepareFeed {
  prepare(
    history: readonly Message[],
    input?: { system?: string; tools?: readonly JsonValue[]; signal?: AbortSignal },
  ): Promise<{ messages: Message[]; run: PipelineRun }>;
  state(): PipelineState | undefined;
}

export function createPrepareFeed(options: FeedOptions = {}): PrepareFeed {
  const { dialect, state: initial, ...pipelineOptions } = options;
  const pipeline = createPipeline(pipelineOptions);
  let seen: string[] = [];
  let working: Message[] = [];
  let state = initial;
  return {
    async prepare(history, input = {}) {
      const digests = history.map(messageDigest);
      let k = 0;
      while (k < seen.length && k < digests.length && seen[k] === digests[k]) k++;
      if (k < seen.length) {
        working = [];
        k = 0;
      }
      const run = await pipeline.prepare({
        messages: [...working, ...history.slice(k)],
        ...(input.system !== undefined ? { system: input.system } : {}),
        ...(input.tools !== undefined ? { tools: input.tools } : {}),
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
        ...(state !== undefined ? { state } : {}),
        ...(dialect !== undefined ? { dialect } : {}),
      });
      working = run.messages;
      state = run.state;
      seen = digests;
      return { messages: run.send, run };
    },
    state: () => state,
  };
}
