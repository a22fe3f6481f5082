/**
 * The LangChain message each neutral message was made from. `toLangChainMessages` hands back the
 * caller's own object for a neutral message it is given unchanged (the same object the adapter
 * made), so untouched messages keep their class, ids and every field, whatever they held.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { Message } from '../../core/index.ts';

const origins = new WeakMap<Message, BaseMessage>();

export function remember(neutral: Message, original: BaseMessage): void {
  origins.set(neutral, original);
}

export function originOf(neutral: Message): BaseMessage | undefined {
  return origins.get(neutral);
}
