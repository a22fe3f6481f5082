/**
 * The one rule for the system prompt: `prepare({ system })` counts it but does not put it in
 * `run.send`; every `to*` adapter takes it back as `{ system }` and puts it where its provider wants it
 * (a leading system message, Anthropic's `system`, Gemini's `systemInstruction`, Responses
 * `instructions`), ahead of any system message the history holds.
 */
import { CtxError } from '../errors.ts';
import type { Message } from '../messages/types.ts';

export interface SystemOption {
  /** The system prompt passed to `prepare`, sent first. */
  system?: string;
}

/**
 * Throws `invalid_input` naming the first element of `messages` that is not a neutral message (an
 * object with a role and an array of part objects): from plain JavaScript, a `to*` adapter handed
 * provider messages or `undefined` failed as a TypeError from deep inside it.
 */
export function checkNeutral(messages: unknown): asserts messages is readonly Message[] {
  if (!Array.isArray(messages))
    throw new CtxError('invalid_input', 'expected an array of messages', { path: 'messages' });
  messages.forEach((m: Message | null, i) => {
    if (
      typeof m?.role !== 'string' ||
      !Array.isArray(m.parts) ||
      m.parts.some((p) => typeof p?.type !== 'string')
    )
      throw new CtxError('invalid_input', 'expected a neutral message: { id, role, parts }', {
        path: `messages[${i}]`,
      });
  });
}

/** `messages`, checked, with `system` as a leading system message (the same array when there is none). */
export function withSystem(messages: readonly Message[], system: string | undefined): readonly Message[] {
  checkNeutral(messages);
  if (system === undefined || system === '') return messages;
  const head: Message = { id: 'system', role: 'system', parts: [{ type: 'text', text: system }] };
  return [head, ...messages];
}
