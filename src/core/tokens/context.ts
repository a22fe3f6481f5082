/**
 * The context estimate: system prompt + tool schemas + visible messages, anchored to the provider's
 * last reported usage when there is one (003 §5.5): that total plus an estimate of every later message.
 */
import type { Message, ToolDefinition, Usage } from '../messages/types.ts';
import type { TokenCounter } from '../ports.ts';

const toolTexts = new WeakMap<readonly ToolDefinition[], { items: ToolDefinition[]; json: string }>();

/**
 * `JSON.stringify(tools)`, kept per tools array while it holds the same tool objects: a caller
 * passes its tool schemas (often tens of KB) on every call, and every estimate counts them.
 */
export function toolsJson(tools: readonly ToolDefinition[]): string {
  const hit = toolTexts.get(tools);
  if (hit?.items.length === tools.length && hit.items.every((t, i) => t === tools[i])) return hit.json;
  const json = JSON.stringify(tools);
  toolTexts.set(tools, { items: [...tools], json });
  return json;
}

export interface ContextInput {
  system?: string;
  /** Tool schemas as sent to the provider; counted as their JSON. */
  tools?: readonly ToolDefinition[];
  messages: readonly Message[];
}

export interface ContextEstimate {
  tokens: number;
  system: number;
  tools: number;
  messages: number;
  /** Id of the assistant message whose reported usage anchored the estimate. */
  anchorId?: string;
}

/**
 * Total of a usage record (003 §5.5 `usageTotalTokens`): the provider's total when it is > 0, else
 * input + output + cache read + cache write (a reported total of 0 means "not reported"). 0 when unusable.
 */
export function usageTotal(usage: Usage): number {
  const stop = usage.stopReason?.trim().toLowerCase();
  if (stop === 'aborted' || stop === 'error') return 0;
  if (usage.totalTokens !== undefined && usage.totalTokens > 0) return usage.totalTokens;
  return (
    usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
  );
}

/** Index of the newest visible assistant message with a usable usage, or -1. */
export function findUsageAnchor(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || !m.usage || m.meta?.agentVisible === false) continue;
    if (usageTotal(m.usage) > 0) return i;
  }
  return -1;
}

export interface EstimateOptions {
  /** Use the provider's last reported usage as the base. @default true */
  anchor?: boolean;
}

export function estimateContext(
  input: ContextInput,
  counter: TokenCounter,
  options: EstimateOptions = {},
): ContextEstimate {
  const system = input.system ? counter.countText(input.system) : 0;
  const tools = input.tools && input.tools.length > 0 ? counter.countText(toolsJson(input.tools)) : 0;
  const anchor = options.anchor === false ? -1 : findUsageAnchor(input.messages);
  let messages = 0;
  if (anchor >= 0) {
    const m = input.messages[anchor]!;
    let after = 0;
    for (let i = anchor + 1; i < input.messages.length; i++)
      after += counter.countMessage(input.messages[i]!);
    // The reported total already covers the system prompt, tools and the anchor's own output.
    const total = usageTotal(m.usage!) + after;
    return { tokens: total, system, tools, messages: total - system - tools, anchorId: m.id };
  }
  for (const m of input.messages) messages += counter.countMessage(m);
  return { tokens: system + tools + messages, system, tools, messages };
}
