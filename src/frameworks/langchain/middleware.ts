/**
 * `ctxkitMiddleware(options)`: a LangChain `createAgent` middleware that reduces what each model call is
 * sent (`wrapModelCall`), incrementally: it takes in only what is new since its last call, so the
 * summarizer runs once per threshold crossing and the current step is never folded into a summary. The
 * agent's state keeps the raw history (the checkpointer saves it as before), so nothing is lost and a
 * resumed thread is reduced again from it; untouched messages reach the model as the caller's own objects.
 *
 *   createAgent({ model, tools, middleware: [ctxkitMiddleware({ contextWindow: 128_000 })] })
 *
 * One reducer per thread: the thread id comes from `runtime.configurable.thread_id` when there is one,
 * else the conversation is recognised by its first message.
 * Its state (what it has seen, its working context, the pipeline state) is kept in the graph state as
 * `ctxkitContext` after each model call, so the checkpointer saves it with the thread: a process that
 * resumes the thread picks the reducer up from there instead of reducing the raw history again.
 */
import * as langchain from 'langchain';
import * as z from 'zod';
import {
  type ContextState,
  CtxError,
  createContext,
  type IncrementalContext,
  isCtxError,
} from '../../core/index.ts';
import { Conversations, firstMessageKey } from '../conversations.ts';
import { type CtxkitOptions, modelCall, resolveOptions } from '../options.ts';
import { fromLangChainMessages } from './from-langchain.ts';
import { toLangChainMessages } from './to-langchain.ts';
import { langChainToolDefinitions } from './tools.ts';

export interface CtxkitLangChainOptions extends CtxkitOptions {
  /**
   * Tool definitions to count instead of the tools the model call is bound to (`request.tools`, counted
   * by default): LangChain tools or JSON definitions.
   */
  tools?: readonly unknown[];
}

/** @deprecated the name before every entry took the same options: `CtxkitLangChainOptions`. */
export type MiddlewareOptions = CtxkitLangChainOptions;

/** The graph state key the reducer's state is saved under (the checkpointer persists it). */
export const CONTEXT_STATE_KEY = 'ctxkitContext';

const stateSchema: z.ZodObject<{ ctxkitContext: z.ZodOptional<z.ZodUnknown> }> = z.object({
  [CONTEXT_STATE_KEY]: z.unknown().optional(),
});

/** The middleware `ctxkitMiddleware` returns: `createAgent`'s middleware with ctxkit's state key. */
export type CtxkitLangChainMiddleware = langchain.AgentMiddleware<typeof stateSchema, undefined, unknown>;

function threadOf(runtime: unknown): string | undefined {
  const id = (runtime as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export function ctxkitMiddleware(middlewareOptions: CtxkitLangChainOptions): CtxkitLangChainMiddleware {
  const { context, system: ownSystem, onRun } = resolveOptions('ctxkitMiddleware', middlewareOptions);
  // langchain 0.x has no createAgent middleware: say so rather than fail on an undefined function.
  if (typeof langchain.createMiddleware !== 'function')
    throw new CtxError('unsupported', 'ctxkitMiddleware needs langchain 1.x (createAgent middleware)');
  const ownTools = middlewareOptions.tools ? langChainToolDefinitions(middlewareOptions.tools) : undefined;
  /** The JSON definitions of a call's tools, converted once per tools array. */
  const definitions = new WeakMap<readonly unknown[], ReturnType<typeof langChainToolDefinitions>>();
  const toolsOf = (tools: readonly unknown[] | undefined) => {
    if (ownTools) return ownTools;
    if (!tools) return [];
    let d = definitions.get(tools);
    if (!d) {
      d = langChainToolDefinitions(tools);
      definitions.set(tools, d);
    }
    return d;
  };
  const make = (saved?: unknown): IncrementalContext => {
    try {
      return createContext({
        dialect: 'anthropic',
        ...context,
        ...(saved ? { state: saved as ContextState } : {}),
      });
    } catch (error) {
      // A saved state this version cannot read (or a damaged one): start over from the raw history.
      if (!isCtxError(error)) throw error;
      return createContext({ dialect: 'anthropic', ...context });
    }
  };
  /** Reducers by thread, else by the conversation's first message (a thread resumes from saved state). */
  const feeds = new Conversations<IncrementalContext | undefined>(() => undefined);
  const feedFor = (key: string, saved: unknown) => {
    let feed = feeds.get(key);
    if (!feed) {
      feed = make(saved);
      feeds.remember(key, feed);
    }
    return feed;
  };
  return langchain.createMiddleware({
    name: 'ctxkit',
    stateSchema,
    wrapModelCall: async (request, handler) => {
      const saved = (request.state as Record<string, unknown> | undefined)?.[CONTEXT_STATE_KEY];
      const history = fromLangChainMessages(request.messages);
      const thread = threadOf(request.runtime);
      const key = thread !== undefined ? `thread:${thread}` : firstMessageKey(history);
      const system = request.systemPrompt || ownSystem;
      const run = await feedFor(key, saved).prepare(history, {
        ...(system ? { system } : {}),
        tools: toolsOf(request.tools as readonly unknown[] | undefined),
        ...modelCall(request.model),
      });
      onRun?.(run);
      return handler({ ...request, messages: toLangChainMessages(run.send) });
    },
    // Saved with the thread (a checkpointer needs a thread id); without one there is nothing to resume.
    afterModel: (_state, runtime) => {
      const thread = threadOf(runtime);
      const feed = thread === undefined ? undefined : feeds.peek(`thread:${thread}`);
      return feed ? { [CONTEXT_STATE_KEY]: feed.toJSON() } : undefined;
    },
  });
}
