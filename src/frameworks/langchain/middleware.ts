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
 */
import { createMiddleware } from 'langchain';
import { type ContextOptions, createContext, type IncrementalContext } from '../../core/index.ts';
import { fromLangChainMessages } from './from-langchain.ts';
import { toLangChainMessages } from './to-langchain.ts';

export type MiddlewareOptions = ContextOptions;

/** At most this many threads' reducers are held; the oldest is dropped (it starts over from the raw history). */
const MAX_THREADS = 256;

export function ctxkitMiddleware(options: MiddlewareOptions = {}) {
  const feeds = new Map<string, IncrementalContext>();
  const feedFor = (thread: string) => {
    let feed = feeds.get(thread);
    if (!feed) {
      feed = createContext({ dialect: 'anthropic', ...options });
      feeds.set(thread, feed);
      if (feeds.size > MAX_THREADS) feeds.delete(feeds.keys().next().value as string);
    }
    return feed;
  };
  return createMiddleware({
    name: 'ctxkit',
    wrapModelCall: async (request, handler) => {
      const configurable = (request.runtime as { configurable?: { thread_id?: unknown } } | undefined)
        ?.configurable;
      const thread = typeof configurable?.thread_id === 'string' ? configurable.thread_id : '';
      const history = fromLangChainMessages(request.messages);
      const run = await feedFor(thread).prepare(history, { system: request.systemPrompt });
      return handler({ ...request, messages: toLangChainMessages(run.send) });
    },
  });
}
