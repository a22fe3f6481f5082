/**
 * `ctxkitPrepareStep({ contextWindow })`: the AI SDK's persisting hook. Before every step the agent
 * hands it the messages it holds; it runs ctxkit's pipeline with the provider rules of the step's model
 * and returns the prompt to send, which the SDK keeps for later steps. Messages no stage touched come
 * back as the caller's own objects; the raw history stays with the caller (`result.response.messages`
 * appended to it), and the hook recognises it on the next run.
 *
 *   new ToolLoopAgent({ model, tools, prepareStep: ctxkitPrepareStep({ contextWindow: 128_000 }) })
 */
import type { ModelMessage } from 'ai';
import type { BudgetConfig, JsonValue, Message, PipelineRun, ToolDefinition } from '../../core/index.ts';
import { type ContextOptions, CtxError, createContext, type IncrementalContext } from '../../core/index.ts';
import { dialectOf, instructionsText } from './dialect.ts';
import { fromModelMessage } from './from-model-messages.ts';
import { toModelMessage } from './to-model-messages.ts';
import { type ToolLike, toolDefinitions } from './tool-definitions.ts';

export interface CtxkitAiSdkOptions extends Omit<ContextOptions, 'budget' | 'dialect'> {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Budget overrides beyond the window (levels, reserved output). */
  budget?: Partial<Omit<BudgetConfig, 'contextWindow'>>;
  /**
   * The agent's tools, counted in the estimate (prepareStep is not handed them): the tool set itself
   * (zod, Standard Schema or `jsonSchema()` input schemas) or JSON definitions.
   */
  tools?: readonly ToolDefinition[] | Readonly<Record<string, ToolLike>>;
  /** Called with every pipeline run (reports, journal): tests, logging. */
  onRun?: (run: PipelineRun) => void;
}

/** What `prepareStep` is given that this hook reads. */
export interface PrepareStepInput {
  messages: ModelMessage[];
  model?: string | { readonly provider: string };
  instructions?: string | { content: string } | readonly { content: string }[] | undefined;
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

export function validateWindow(contextWindow: unknown): number {
  if (
    typeof contextWindow !== 'number' ||
    !Number.isInteger(contextWindow) ||
    contextWindow < 1024 ||
    contextWindow > 10_000_000
  )
    throw new CtxError(
      'invalid_config',
      `contextWindow must be an integer from 1024 to 10,000,000 tokens, got ${String(contextWindow)}`,
    );
  return contextWindow;
}

/** The context and bridge behind a hook (shared by `prepareStep` and the middleware). */
export function createAiSdkContext(options: CtxkitAiSdkOptions): {
  context: IncrementalContext;
  bridge: MessageBridge;
} {
  const { contextWindow, budget, tools: _t, onRun: _o, ...rest } = options;
  const context = createContext({
    ...rest,
    budget: { ...budget, contextWindow: validateWindow(contextWindow) },
  });
  return { context, bridge: new MessageBridge() };
}

export function ctxkitPrepareStep(
  options: CtxkitAiSdkOptions,
): (input: PrepareStepInput) => Promise<{ messages: ModelMessage[] }> {
  const { context, bridge } = createAiSdkContext(options);
  let tools: Promise<readonly JsonValue[]> | undefined;
  return async ({ messages, model, instructions }) => {
    tools ??= resolveTools(options.tools);
    const system = instructionsText(instructions);
    const dialect = dialectOf(model);
    const run = await context.prepare(bridge.neutral(messages), {
      ...(system !== undefined ? { system } : {}),
      tools: await tools,
      ...(dialect ? { dialect } : {}),
    });
    options.onRun?.(run);
    return { messages: bridge.model(run.send) };
  };
}

/** JSON definitions for the `tools` option (computed once per hook). */
export async function resolveTools(tools: CtxkitAiSdkOptions['tools']): Promise<readonly JsonValue[]> {
  if (tools === undefined) return [];
  return Array.isArray(tools)
    ? (tools as readonly JsonValue[])
    : toolDefinitions(tools as Record<string, ToolLike>);
}
