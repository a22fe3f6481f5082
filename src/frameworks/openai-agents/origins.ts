/**
 * The items each neutral message was made from: `toAgentInputItems` returns the caller's own item
 * objects for a neutral message handed back unchanged (what `preserveInputIdentity` relies on).
 */
import type { AgentInputItem } from '@openai/agents';
import type { Message } from '../../core/index.ts';

const origins = new WeakMap<Message, readonly AgentInputItem[]>();

export function remember(neutral: Message, items: readonly AgentInputItem[]): void {
  origins.set(neutral, items);
}

export function originOf(neutral: Message): readonly AgentInputItem[] | undefined {
  return origins.get(neutral);
}
