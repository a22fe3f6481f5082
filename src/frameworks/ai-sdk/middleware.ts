/**
 * `ctxkitMiddleware({ contextWindow })`: ctxkit as an AI SDK `LanguageModelMiddleware` (AI SDK 5, 6 and
 * 7), for code that calls `generateText`/`streamText` directly or wraps a model once for many agents:
 *
 *   const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: ctxkitMiddleware({ contextWindow: 200_000 }) });
 *
 * `transformParams` runs on every call with the whole prompt; what was seen is recognised by content
 * digest, so the pipeline works on the new suffix and the summarizer runs once per threshold crossing.
 * One context per conversation: the id in `providerOptions.ctxkit.conversation` of the call (or the
 * `conversation` option), else the conversation's first message. The tool definitions of the call (JSON
 * Schema) are counted. `wrapGenerate` retries once after a "context too long" answer, on ctxkit's
 * recovered context (a stream cannot be retried once started).
 */
import type { LanguageModelMiddleware, ModelMessage } from 'ai';
import {
  createContext,
  type IncrementalContext,
  isContextOverflowError,
  type JsonValue,
} from '../../core/index.ts';
import { Conversations, conversationId, conversationOption, firstMessageKey } from '../conversations.ts';
import { callOf } from './dialect.ts';
import { DigestBridge } from './digest-bridge.ts';
import { fromModelMessage } from './from-model-messages.ts';
import { type CtxkitAiSdkOptions, resolveAiSdkOptions } from './prepare-step.ts';

/** What a middleware call hands the `conversation` option. */
export interface MiddlewareCall {
  params: { readonly prompt: unknown; readonly providerOptions?: unknown };
  model: unknown;
}

export interface CtxkitMiddlewareOptions extends CtxkitAiSdkOptions {
  /**
   * The id of the conversation a call belongs to. By default `providerOptions.ctxkit.conversation` of
   * the call (`generateText({ …, providerOptions: { ctxkit: { conversation: id } } })`), else the
   * conversation's first message.
   */
  conversation?: (call: MiddlewareCall) => string | number | undefined;
}

interface Conversation {
  context: IncrementalContext;
  bridge: DigestBridge;
}

type Prompt = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params']['prompt'];

/** `providerOptions.ctxkit.conversation` of a call, if given. */
function providerConversation(params: MiddlewareCall['params']): unknown {
  const po = params.providerOptions as { ctxkit?: { conversation?: unknown } } | undefined;
  return po?.ctxkit?.conversation;
}

export function ctxkitMiddleware(options: CtxkitMiddlewareOptions): LanguageModelMiddleware {
  const entry = 'ctxkitMiddleware';
  const {
    context,
    system: ownSystem,
    onRun,
    tools: ownTools,
  } = resolveAiSdkOptions(entry, options, ['conversation']);
  const conversationOf = conversationOption<MiddlewareCall>(entry, options.conversation);
  const conversations = new Conversations<Conversation>(() => ({
    context: createContext(context),
    bridge: new DigestBridge(),
  }));

  function split(prompt: unknown) {
    const all = prompt as ModelMessage[];
    const systems = all.filter((m) => m.role === 'system');
    const system = systems.map((m) => m.content as string).join('\n\n');
    return { systems, system, rest: all.filter((m) => m.role !== 'system') };
  }

  function conversationFor(call: MiddlewareCall, rest: readonly ModelMessage[]): Conversation {
    const id = conversationId(conversationOf ? conversationOf(call) : providerConversation(call.params));
    const first = rest[0];
    return conversations.get(id ?? firstMessageKey(first ? [fromModelMessage(first, 'key', new Map())] : []));
  }

  /** The conversation a retried call belongs to: the one its prompt was prepared in. */
  const byPrompt = new WeakMap<Prompt, Conversation>();

  // Typed against the AI SDK this repository builds with (6: `specificationVersion: 'v3'`, which AI SDK 7
  // accepts and AI SDK 5 ignores: wrapLanguageModel reads only the hooks); the declaration names the
  // installed SDK's `LanguageModelMiddleware`. The prompt is read as a `ModelMessage` list in every version.
  return {
    specificationVersion: 'v3',
    async transformParams({ params, model }) {
      const { systems, system, rest } = split(params.prompt);
      const conversation = conversationFor({ params, model }, rest);
      const { messages, back } = conversation.bridge.neutral(rest);
      const tools = (params.tools ?? []).map((t) => JSON.parse(JSON.stringify(t)) as JsonValue);
      const instructions = system || ownSystem;
      const run = await conversation.context.prepare(messages, {
        ...(instructions ? { system: instructions } : {}),
        tools: tools.length > 0 ? tools : ((await ownTools) ?? []),
        ...callOf(model),
        ...(params.abortSignal ? { signal: params.abortSignal } : {}),
      });
      onRun?.(run);
      const prompt = [...systems, ...conversation.bridge.model(run.send, back)] as unknown as Prompt;
      byPrompt.set(prompt, conversation);
      return { ...params, prompt };
    },
    async wrapGenerate({ doGenerate, params, model }) {
      try {
        return await doGenerate();
      } catch (error) {
        if (!isContextOverflowError(error)) throw error;
        const { systems, rest } = split(params.prompt);
        const conversation = byPrompt.get(params.prompt) ?? conversationFor({ params, model }, rest);
        const run = await conversation.context.recoverOverflow(error, callOf(model));
        onRun?.(run);
        if (!run.retry) throw error;
        const prompt = [...systems, ...conversation.bridge.model(run.send, new Map())] as unknown as Prompt;
        return model.doGenerate({ ...params, prompt });
      }
    },
  };
}
