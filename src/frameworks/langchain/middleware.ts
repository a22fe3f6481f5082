/**
 * `ctxkitMiddleware(options)`: a LangChain `createAgent` middleware that reduces what each model call is
 * sent (`wrapModelCall`), incrementally: it takes in only what is new since its last call, so the
 * summarizer runs once per threshold crossing and the current step is never folded into a summary. The
 * agent's state keeps the raw history (the checkpointer saves it as before), so nothing is lost and a
 * resumed thread is reduced again from it; untouched messages reach the model as the caller's own objects.
 *
 *   createAgent({ model, tools, middleware: [ctxkitMiddleware({ budget: { contextWindow: 128_000 } })] })
 *
 * One reducer per thread: the thread id comes from `runtime.configurable.thread_id` when there is one.
 * Its state (what it has seen, its working context, the pipeline state) is kept in the graph state as
 * `ctxkitContext` after each model call, so the checkpointer saves it with the thread: a process that
 * resumes the thread picks the reducer up from there instead of reducing the raw history again.
 */
import { createMiddleware } from 'langchain';
import * as z from 'zod';
import {
  type ContextOptions,
  type ContextRun,
  type ContextState,
  createContext,
  type IncrementalContext,
  isCtxError,
} from '../../core/index.ts';
import { fromLangChainMessages } from './from-langchain.ts';
import { toLangChainMessages } from './to-langchain.ts';
import { langChainToolDefinitions } from './tools.ts';

export type MiddlewareOptions = ContextOptions & {
  /** Called with every run (reports, journal, estimate before and after). */
  onRun?: (run: ContextRun) => void;
};

/** At most this many threads' reducers are held; the oldest is dropped (it starts over from the raw history). */
const MAX_THREADS = 256;

/** The graph state key the reducer's state is saved under (the checkpointer persists it). */
export const CONTEXT_STATE_KEY = 'ctxkitContext';

const stateSchema = z.object({ [CONTEXT_STATE_KEY]: z.unknown().optional() });

function threadOf(runtime: unknown): string {
  const id = (runtime as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id;
  return typeof id === 'string' ? id : '';
}

export function ctxkitMiddleware(middlewareOptions: MiddlewareOptions = {}) {
  const { onRun, ...options } = middlewareOptions;
  /** The JSON definitions of a call's tools, converted once per tools array. */
  const definitions = new WeakMap<readonly unknown[], ReturnType<typeof langChainToolDefinitions>>();
  const toolsOf = (tools: readonly unknown[] | undefined) => {
    if (!tools) return [];
    let d = definitions.get(tools);
    if (!d) {
      d = langChainToolDefinitions(tools);
      definitions.set(tools, d);
    }
    return d;
  };
  const feeds = new Map<string, IncrementalContext>();
  /** The thread's reducer: held in memory, else resumed from the state the checkpointer saved. */
  const feedFor = (thread: string, saved: unknown) => {
    let feed = feeds.get(thread);
    if (!feed) {
      try {
        feed = createContext({
          dialect: 'anthropic',
          ...options,
          ...(saved ? { state: saved as ContextState } : {}),
        });
      } catch (error) {
        // A saved state this version cannot read (or a damaged one): start over from the raw history.
        if (!isCtxError(error)) throw error;
        feed = createContext({ dialect: 'anthropic', ...options });
      }
      feeds.set(thread, feed);
      if (feeds.size > MAX_THREADS) feeds.delete(feeds.keys().next().value as string);
    }
    return feed;
  };
  return createMiddleware({
    name: 'ctxkit',
    stateSchema,
    wrapModelCall: async (request, handler) => {
      const saved = (request.state as Record<string, unknown> | undefined)?.[CONTEXT_STATE_KEY];
      const history = fromLangChainMessages(request.messages);
      const run = await feedFor(threadOf(request.runtime), saved).prepare(history, {
        system: request.systemPrompt,
        tools: toolsOf(request.tools as readonly unknown[] | undefined),
      });
      onRun?.(run);
      return handler({ ...request, messages: toLangChainMessages(run.send) });
    },
    afterModel: (_state, runtime) => {
      const feed = feeds.get(threadOf(runtime));
      return feed ? { [CONTEXT_STATE_KEY]: feed.toJSON() } : undefined;
    },
  });
}
