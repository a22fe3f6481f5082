/**
 * `ctxkitPrepareStep({ contextWindow })`: the AI SDK's persisting hook. Before every step the agent
 * hands it the messages it holds; it runs ctxkit's pipeline with the provider rules of the step's model
 * and returns the prompt to send (AI SDK 7 keeps it for later steps; 5 and 6 hand the raw history again).
 * Messages no stage touched come back as the caller's own objects; the raw history stays with the
 * caller (`result.response.messages` appended to it), and the hook recognises it on the next run. One
 * context per conversation (its `conversation` id, else its first message), so one agent object can
 * serve many conversations.
 *
 *   new ToolLoopAgent({ model, tools, prepareStep: ctxkitPrepareStep({ contextWindow: 128_000 }) })
 */
import type { ModelMessage } from 'ai';
import { createContext, type IncrementalContext, type JsonValue, type Message } from '../../core/index.ts';
import { Conversations, conversationId, conversationOption, firstMessageKey } from '../conversations.ts';
import { type ResolvedOptions, resolveOptions } from '../options.ts';
import { callOf, instructionsText } from './dialect.ts';
import { fromModelMessage } from './from-model-messages.ts';
import { toModelMessage } from './to-model-messages.ts';
import { type CtxkitAiSdkOptions, type ToolLike, toolDefinitions } from './tool-definitions.ts';

export type { CtxkitAiSdkOptions } from './tool-definitions.ts';

export interface CtxkitPrepareStepOptions extends CtxkitAiSdkOptions {
  /**
   * The id of the conversation a step belongs to, for one agent serving many conversations (the
   * `experimental_context` or `runtimeContext` you pass to `generate`). Without it, a conversation is
   * recognised by its first message.
   */
  conversation?: (step: PrepareStepInput) => string | number | undefined;
}

/** What `prepareStep` is given that this hook reads (AI SDK 5, 6 and 7). */
export interface PrepareStepInput {
  messages: ModelMessage[];
  model?: string | { readonly provider: string };
  /** AI SDK 7: the step's instructions (AI SDK 5 and 6 do not hand them: pass `system`). */
  instructions?: string | { content: string } | readonly { content: string }[] | undefined;
  /** AI SDK 5 and 6: the `experimental_context` given to the call. */
  experimental_context?: unknown;
  /** AI SDK 7: the `runtimeContext` given to the call. */
  runtimeContext?: unknown;
}

/** Keeps the two directions of the message conversion by identity, so that untouched messages are the caller's. */
export class MessageBridge {
  private readonly toNeutral = new WeakMap<ModelMessage, Message>();
  private readonly toModel = new WeakMap<Message, ModelMessage>();
  private next = 0;
  /** Approval id → call id, so that an approval response is tied to its request's call. */
  private readonly approvals = new Map<string, string>();

  neutral(messages: readonly ModelMessage[]): Message[] {
    return messages.map((m) => {
      let n = this.toNeutral.get(m);
      if (!n) {
        n = fromModelMessage(m, `ai-${this.next++}`, this.approvals);
        this.toNeutral.set(m, n);
        this.toModel.set(n, m);
      }
      return n;
    });
  }

  model(messages: readonly Message[]): ModelMessage[] {
    const names = new Map<string, string>();
    for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name);
    return messages.map((n) => {
      let m = this.toModel.get(n);
      if (!m) {
        m = toModelMessage(n, names);
        this.toModel.set(n, m);
        this.toNeutral.set(m, n);
      }
      return m;
    });
  }
}

/** An AI SDK entry's options, validated (`resolveOptions` with the AI SDK's `tools`). */
export function resolveAiSdkOptions(
  entry: string,
  options: unknown,
  own: readonly string[] = [],
): ResolvedOptions & { tools: Promise<readonly JsonValue[]> | undefined } {
  const resolved = resolveOptions(entry, options, own);
  const given = (options as CtxkitAiSdkOptions).tools;
  return { ...resolved, tools: given === undefined ? undefined : resolveTools(given) };
}

interface Conversation {
  context: IncrementalContext;
  bridge: MessageBridge;
}

export function ctxkitPrepareStep(
  options: CtxkitPrepareStepOptions,
): (input: PrepareStepInput) => Promise<{ messages: ModelMessage[] }> {
  const entry = 'ctxkitPrepareStep';
  const { context, system: ownSystem, onRun, tools } = resolveAiSdkOptions(entry, options, ['conversation']);
  const conversationOf = conversationOption<PrepareStepInput>(entry, options.conversation);
  const conversations = new Conversations<Conversation>(() => ({
    context: createContext(context),
    bridge: new MessageBridge(),
  }));
  /** The key of a first message, by identity (the SDK hands the same objects step after step). */
  const keys = new WeakMap<ModelMessage, string>();
  const keyOf = (messages: readonly ModelMessage[]) => {
    const first = messages.find((m) => m.role !== 'system');
    if (!first) return firstMessageKey([]);
    let key = keys.get(first);
    if (key === undefined) {
      key = firstMessageKey([fromModelMessage(first, 'key', new Map())]);
      keys.set(first, key);
    }
    return key;
  };
  return async (input) => {
    const { messages, model, instructions } = input;
    const id = conversationId(conversationOf?.(input));
    const conversation = conversations.get(id ?? keyOf(messages));
    const { context: ctx, bridge } = conversation;
    const system = instructionsText(instructions) ?? ownSystem;
    const run = await ctx.prepare(bridge.neutral(messages), {
      ...(system !== undefined ? { system } : {}),
      tools: (await tools) ?? [],
      ...callOf(model),
    });
    onRun?.(run);
    const sent = bridge.model(run.send);
    // AI SDK 7 hands the next step what this one returned: recognise the conversation by it too.
    if (id === undefined) conversations.remember(keyOf(sent), conversation);
    return { messages: sent };
  };
}

/** JSON definitions for the `tools` option (computed once per hook). */
export async function resolveTools(tools: CtxkitAiSdkOptions['tools']): Promise<readonly JsonValue[]> {
  if (tools === undefined) return [];
  return Array.isArray(tools)
    ? (tools as readonly JsonValue[])
    : toolDefinitions(tools as Record<string, ToolLike>);
}
