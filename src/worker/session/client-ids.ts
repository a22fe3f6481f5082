/**
 * Client message ids in the OpenAI and Anthropic formats. Neither format has a message id, so a
 * message may carry its own `id` (a string, as in the neutral form); the adapters ignore the field,
 * and it is applied here. A message the adapter splits (an Anthropic user message with tool results
 * becomes one message per result, then the text) gets `id`, `id.1`, `id.2`, … in order. Messages
 * without one get `m<seq>` from the session as before. A retry that resends the same ids is refused
 * as a duplicate (409) instead of being stored twice; `Idempotency-Key` answers it with the first result.
 */
import { CtxError, fromAnthropic, type Message } from '../../core/index.ts';
import type { ParsedMessages } from './parsed-messages.ts';

const ID_MAX = 200;

/** The `id` of each raw message, validated; `undefined` where there is none. */
export function clientIds(raw: readonly unknown[]): Array<string | undefined> {
  return raw.map((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m) || !('id' in m)) return undefined;
    const id = (m as { id: unknown }).id;
    if (typeof id !== 'string' || id === '' || id.length > ID_MAX)
      throw new CtxError('invalid_input', `must be a string of 1–${ID_MAX} characters`, {
        path: `messages[${i}].id`,
      });
    return id;
  });
}

/** OpenAI: one neutral message per input message. */
export function withOpenAIIds(
  parsed: ParsedMessages,
  ids: ReadonlyArray<string | undefined>,
): ParsedMessages {
  if (ids.every((id) => id === undefined)) return parsed;
  return {
    messages: parsed.messages.map((m, i) => (ids[i] !== undefined ? { ...m, id: ids[i]! } : m)),
    autoId: parsed.autoId.map((auto, i) => auto && ids[i] === undefined),
  };
}

/** Anthropic: converted message by message, so that each neutral message knows its source. */
export function anthropicWithIds(
  messages: readonly unknown[],
  system: unknown,
  ids: ReadonlyArray<string | undefined>,
): ParsedMessages | undefined {
  if (ids.every((id) => id === undefined)) return undefined;
  const out: Message[] = [];
  const autoId: boolean[] = [];
  if (system !== undefined) {
    // The request's system is the first message of a whole-request conversion.
    const first = fromAnthropic({ system, messages: messages.slice(0, 1) })[0]!;
    out.push(first);
    autoId.push(true);
  }
  messages.forEach((raw, i) => {
    const converted = fromAnthropic([raw]);
    converted.forEach((m, j) => {
      const id = ids[i];
      out.push(id === undefined ? m : { ...m, id: j === 0 ? id : `${id}.${j}` });
      autoId.push(id === undefined);
    });
  });
  return { messages: out, autoId };
}
