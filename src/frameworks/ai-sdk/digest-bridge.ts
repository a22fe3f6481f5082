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
  /** Approval id → call id, so that an approval response is tied to its request's call. */
  private readonly approvals = new Map<string, string>();

  /**
   * @param taken ids already in use (a resumed context's working messages): new messages are numbered
   * after the highest `mastra-N` among them, so no id repeats.
   */
  constructor(taken: Iterable<string> = []) {
    for (const id of taken) {
      const n = /^mastra-(\d+)$/.exec(id);
      if (n) this.next = Math.max(this.next, Number(n[1]) + 1);
    }
  }
  private next = 0;

  /** Neutral messages for this call's prompt, and the way back to its own objects. */
  neutral(prompt: readonly ModelMessage[]): { messages: Message[]; back: Map<Message, ModelMessage> } {
    const back = new Map<Message, ModelMessage>();
    // Equal messages in one prompt (two identical answers) are told apart by their occurrence.
    const occurrences = new Map<string, number>();
    const messages = prompt.map((m) => {
      const fresh = fromModelMessage(m, `mastra-${this.next}`, this.approvals);
      const content = `${fresh.role}:${messageDigest(fresh)}`;
      const nth = occurrences.get(content) ?? 0;
      occurrences.set(content, nth + 1);
      const digest = `${content}#${nth}`;
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
