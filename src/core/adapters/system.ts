/**
 * The one rule for the system prompt: `prepare({ system })` counts it but does not put it in
 * `run.send`; every `to*` adapter takes it back as `{ system }` and puts it where its provider wants it
 * (a leading system message, Anthropic's `system`, Gemini's `systemInstruction`, Responses
 * `instructions`), ahead of any system message the history holds.
 */
import type { Message } from '../messages/types.ts';

export interface SystemOption {
  /** The system prompt passed to `prepare`, sent first. */
  system?: string;
}

/** `messages` with `system` as a leading system message (the same array when there is none). */
export function withSystem(messages: readonly Message[], system: string | undefined): readonly Message[] {
  if (system === undefined || system === '') return messages;
  const head: Message = { id: 'system', role: 'system', parts: [{ type: 'text', text: system }] };
  return [head, ...messages];
}
