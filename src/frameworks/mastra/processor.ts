/**
 * `ctxkitProcessor({ contextWindow })`: ctxkit as a Mastra input processor.
 *
 * - `processLLMRequest` (every model call): the prompt Mastra built from the thread goes through the
 *   pipeline with the rules of the call's provider; messages no stage touched go out as Mastra's own.
 *   What was seen is recognised by content digest, so the summarizer runs once per threshold crossing
 *   although Mastra hands over the whole raw prompt each call. Mastra's stored messages are untouched:
 *   the raw history stays the recovery path.
 * - State in thread metadata: when the agent runs with memory (`memory: { thread, resource }`), Mastra
 *   puts the thread in the request context (`MastraMemory`); the processor keeps one context per thread
 *   and writes its state (`toJSON()`) to the thread's metadata under `ctxkit` after every call, so a
 *   process that resumes the thread (same storage) picks the context up instead of reducing the raw
 *   history again. Without memory the state lives in the processor instance.
 * - Tools: the step's tool set (`processInputStep` is handed it; zod, Standard Schema or JSON Schema
 *   input schemas) is counted in the estimate, unless the `tools` option gives the definitions.
 * - `processAPIError`: a "context too long" answer runs ctxkit's overflow recovery and asks Mastra to
 *   retry the step; the next request is built on the recovered context.
 *
 *   new Agent({ …, inputProcessors: [ctxkitProcessor({ contextWindow: 128_000 })] })
 */
import type { MastraMemory } from '@mastra/core/memory';
import type { Processor } from '@mastra/core/processors';
import type { ModelMessage } from 'ai';
import {
  type ContextState,
  CtxError,
  createContext,
  type IncrementalContext,
  isContextOverflowError,
  isCtxError,
  type JsonValue,
} from '../../core/index.ts';
import { callOf } from '../ai-sdk/dialect.ts';
import { DigestBridge } from '../ai-sdk/digest-bridge.ts';
import { fromModelMessage } from '../ai-sdk/from-model-messages.ts';
import { resolveAiSdkOptions } from '../ai-sdk/prepare-step.ts';
import { type CtxkitAiSdkOptions, type ToolLike, toolDefinitions } from '../ai-sdk/tool-definitions.ts';
import { Conversations, firstMessageKey } from '../conversations.ts';
import { type HookContext, memoryOf, threadOf } from './thread-memory.ts';

export interface CtxkitMastraOptions extends CtxkitAiSdkOptions {
  /**
   * The memory the agent's threads live in (the object given to the `Agent` as `memory`), where the
   * processor saves its state. Mastra hands a processor the thread but not the memory object: without
   * this option the processor takes it from the run's memory state in the request context, an internal
   * part of Mastra; pass it to depend on nothing internal.
   */
  memory?: MastraMemory;
}

/** The thread metadata key the processor's state is saved under. */
export const THREAD_STATE_KEY = 'ctxkit';

function providerOf(model: unknown): { readonly provider: string; readonly modelId?: string } | undefined {
  return typeof model === 'object' &&
    model !== null &&
    typeof (model as { provider?: unknown }).provider === 'string'
    ? (model as { provider: string; modelId?: string })
    : undefined;
}

type LLMRequestArgs = Parameters<NonNullable<Processor['processLLMRequest']>>[0];
type LLMRequestPrompt = LLMRequestArgs['prompt'];

/** A Mastra input processor with the hooks ctxkit implements. */
export type CtxkitProcessor = Processor<'ctxkit'> &
  Required<
    Pick<Processor<'ctxkit'>, 'processInput' | 'processInputStep' | 'processLLMRequest' | 'processAPIError'>
  >;

/** The request state key the step's tool definitions travel under, from `processInputStep` to `processLLMRequest`. */
const TOOLS_KEY = 'ctxkitTools';

interface ThreadFeed {
  context: IncrementalContext;
  bridge: DigestBridge;
  /** The memory the thread lives in (state is written there), when the agent has one. */
  memory?: MastraMemory;
}

export function ctxkitProcessor(options: CtxkitMastraOptions): CtxkitProcessor {
  const {
    context: contextOptions,
    system: ownSystem,
    onRun,
    tools: ownTools,
  } = resolveAiSdkOptions('ctxkitProcessor', options, ['memory']);
  /** The JSON definitions of a step's tool set, converted once per tool set. */
  const definitions = new WeakMap<object, ReturnType<typeof toolDefinitions>>();
  const toolsOf = (tools: Record<string, unknown>) => {
    let d = definitions.get(tools);
    if (!d) {
      d = toolDefinitions(tools as Record<string, ToolLike>);
      definitions.set(tools, d);
    }
    return d;
  };
  let call: ReturnType<typeof callOf> = {};
  let last: ThreadFeed | undefined;

  const fresh = (state?: ContextState): IncrementalContext => {
    if (state === undefined) return createContext(contextOptions);
    try {
      return createContext({ ...contextOptions, state });
    } catch (error) {
      // A saved state this version cannot read (or a damaged one): start over from the raw history.
      if (!isCtxError(error)) throw error;
      return createContext(contextOptions);
    }
  };
  /** Contexts by thread (held ones; others resume from thread metadata), else by first message. */
  const feeds = new Conversations<ThreadFeed | undefined>(() => undefined);

  /** The thread's context: held in memory, else resumed from the thread's metadata. */
  const feedFor = async (
    hook: HookContext,
    rest: readonly ModelMessage[],
  ): Promise<{ feed: ThreadFeed; thread?: string }> => {
    const thread = threadOf(hook);
    const first = rest[0];
    const key =
      thread !== undefined
        ? `thread:${thread}`
        : firstMessageKey(first ? [fromModelMessage(first, 'key', new Map())] : []);
    let feed = feeds.get(key);
    if (!feed) {
      const memory = thread ? memoryOf(hook, options.memory) : undefined;
      const saved =
        thread && memory ? (await memory.getThreadById({ threadId: thread }))?.metadata : undefined;
      const context = fresh(saved?.[THREAD_STATE_KEY] as ContextState | undefined);
      feed = {
        context,
        bridge: new DigestBridge(context.toJSON().working.map((m) => m.id)),
        ...(memory ? { memory } : {}),
      };
      feeds.remember(key, feed);
    }
    return thread ? { feed, thread } : { feed };
  };

  /** Writes the context's state to the thread's metadata, keeping the other keys. */
  const save = async (feed: ThreadFeed, thread: string | undefined) => {
    if (!thread || !feed.memory) return;
    const current = await feed.memory.getThreadById({ threadId: thread });
    if (!current) return;
    await feed.memory.updateThread({
      id: thread,
      title: current.title ?? '',
      metadata: { ...current.metadata, [THREAD_STATE_KEY]: feed.context.toJSON() },
    });
  };

  return {
    id: 'ctxkit',
    name: 'ctxkit context',
    /**
     * Changes nothing in Mastra 1 (which hands it the run's `messageList`). Mastra 0.x calls input
     * processors only here, once per `generate`, and skips a processor without it: ctxkit would then
     * silently do nothing, so it says which Mastra it needs instead.
     */
    processInput(args) {
      if ((args as { messageList?: unknown }).messageList === undefined)
        throw new CtxError(
          'unsupported',
          'ctxkitProcessor needs @mastra/core 1.x, whose processors run before every model call ' +
            '(processLLMRequest); this Mastra (0.x) runs input processors once per generate. ' +
            'npm install @mastra/core@1 (it declares Node >= 22.13)',
        );
      return args.messageList;
    },
    /** Changes nothing: hands the step's tools (zod, Standard Schema or JSON Schema) to the request hook. */
    processInputStep({ tools, state }) {
      if (tools && ownTools === undefined) state[TOOLS_KEY] = toolsOf(tools);
      return undefined;
    },
    async processLLMRequest(args) {
      const { prompt, model } = args;
      const tools = await (ownTools ?? (args.state?.[TOOLS_KEY] as Promise<JsonValue[]> | undefined) ?? []);
      const all = prompt as unknown as ModelMessage[];
      const systems = all.filter((m) => m.role === 'system');
      const rest = all.filter((m) => m.role !== 'system');
      const { feed, thread } = await feedFor(args, rest);
      last = feed;
      call = callOf(providerOf(model));
      const system = systems.map((m) => m.content as string).join('\n\n') || ownSystem;
      const { messages, back } = feed.bridge.neutral(rest);
      const run = await feed.context.prepare(messages, {
        ...(system ? { system } : {}),
        tools,
        ...call,
      });
      onRun?.(run);
      await save(feed, thread);
      return { prompt: [...systems, ...feed.bridge.model(run.send, back)] as unknown as LLMRequestPrompt };
    },
    async processAPIError(args) {
      if (!isContextOverflowError(args.error)) return undefined;
      const thread = threadOf(args);
      const feed = (thread !== undefined ? feeds.peek(`thread:${thread}`) : undefined) ?? last;
      if (!feed) return undefined;
      const run = await feed.context.recoverOverflow(args.error, call);
      onRun?.(run);
      await save(feed, thread);
      return { retry: run.retry };
    },
  };
}
