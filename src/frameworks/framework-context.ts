/**
 * The context a framework hook keeps across model calls: it is handed the history the framework has
 * (the caller's raw history, or what the hook returned last time plus what arrived since), recognises
 * what it has already seen by object identity, runs the pipeline on its own working context plus the
 * new suffix, and returns the pipeline's run (`send` holds the caller's own message objects wherever a
 * stage left a message alone).
 *
 * This is the internal stand-in for the core's incremental context (`createContext`, issue #26), with
 * the same contract: `prepare(history, { system, tools, signal })`, `state()` as JSON. The framework
 * entries use only this file, so swapping it for `createContext` changes nothing in them.
 */
import {
  createPipeline,
  type Dialect,
  type JsonValue,
  type Message,
  type Pipeline,
  type PipelineOptions,
  type PipelineRun,
  type PipelineState,
} from '../core/index.ts';

export interface FrameworkContextOptions extends PipelineOptions {
  /** Carried state from `state()` of an earlier context (a resumed thread). */
  state?: PipelineState;
}

export interface PrepareCallOptions {
  system?: string;
  tools?: readonly JsonValue[];
  dialect?: Dialect;
  signal?: AbortSignal;
}

export interface FrameworkContext {
  readonly pipeline: Pipeline;
  /** Pre-flight for one model call over the history the framework holds now. */
  prepare(history: readonly Message[], options?: PrepareCallOptions): Promise<PipelineRun>;
  /** The provider said "context too long": a reduced working context and whether to retry. */
  recoverOverflow(error: unknown, options?: PrepareCallOptions): Promise<PipelineRun & { retry: boolean }>;
  /** The pipeline state to carry (JSON). */
  state(): PipelineState | undefined;
}

/** `history` minus `prefix` when `history` starts with exactly the objects of `prefix`. */
function suffixAfter(
  history: readonly Message[],
  prefix: readonly Message[],
): readonly Message[] | undefined {
  if (prefix.length > history.length) return undefined;
  for (let i = 0; i < prefix.length; i++) if (history[i] !== prefix[i]) return undefined;
  return history.slice(prefix.length);
}

export function createFrameworkContext(options: FrameworkContextOptions): FrameworkContext {
  const { state: initial, ...pipelineOptions } = options;
  const pipeline = createPipeline(pipelineOptions);
  let state = initial;
  let working: Message[] = [];
  /** The caller's history as far as it has been taken in, and the last send. */
  let raw: readonly Message[] = [];
  let sent: readonly Message[] = [];

  function input(history: readonly Message[]): Message[] {
    const fromRaw = suffixAfter(history, raw);
    const fresh = fromRaw ?? (sent.length > 0 ? suffixAfter(history, sent) : undefined);
    if (fresh === undefined) {
      // A history that continues neither the caller's nor the last send: a new conversation.
      raw = history;
      return [...history];
    }
    raw = fromRaw !== undefined ? history : raw.concat(fresh);
    return working.concat(fresh);
  }

  function keep(run: PipelineRun): void {
    working = run.messages;
    state = run.state;
    sent = run.send;
  }

  return {
    pipeline,
    async prepare(history, o = {}) {
      const messages = input(history);
      const run = await pipeline.prepare({ messages, ...o, ...(state ? { state } : {}) });
      keep(run);
      return run;
    },
    async recoverOverflow(error, o = {}) {
      const run = await pipeline.recoverOverflow({
        messages: working,
        error,
        ...o,
        ...(state ? { state } : {}),
      });
      keep(run);
      return run;
    },
    state: () => state,
  };
}
