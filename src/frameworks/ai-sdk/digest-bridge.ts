/**
 * Per-call hooks (the AI SDK middleware, Mastra's `processLLMRequest`) are handed a prompt rebuilt on
 * every call, so identity cannot tell a message already seen. This bridge recognises them by content digest (the core's `messageDigest`): a prompt
 * message seen before maps to the same neutral object, which the framework context then recognises;
 * on the way back, a neutral message that stands for a message of this call's prompt is that prompt
 * object itself.
 */
import type { ModelMessage } from 'ai';
import { type Message, messageDigest } from '../../core/index.ts';
import { fromModelMessage } from './from-model-messages.ts';
import { toModelMessage } from './to-model-messages.ts';

export class DigestBridge {
  private readonly byDigest = new Map<string, Message>();
  private next = 0;
  /** Approval id → call id, so that an approval response is tied to its request's call. */
  private readonly approvals = new Map<string, string>();

  /** Neutral messages for this call's prompt, and the way back to its own objects. */
  neutral(prompt: readonly ModelMessage[]): { messages: Message[]; back: Map<Message, ModelMessage> } {
    const back = new Map<Message, ModelMessage>();
    const messages = prompt.map((m) => {
      const fresh = fromModelMessage(m, `mastra-${this.next}`, this.approvals);
      const digest = `${fresh.role}:${messageDigest(fresh)}`;
      let n = this.byDigest.get(digest);
      if (!n) {
        n = fresh;
        this.next++;
        this.byDigest.set(digest, n);
      }
      back.set(n, m);
      return n;
    });
    return { messages, back };
  }

  model(messages: readonly Message[], back: ReadonlyMap<Message, ModelMessage>): ModelMessage[] {
    const names = new Map<string, string>();
    for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call') names.set(p.id, p.name);
    return messages.map((n) => back.get(n) ?? toModelMessage(n, names));
  }
}
