/** Writes neutral messages back out in a transcript format (the input's family by default). */
import {
  type JsonValue,
  type Message,
  toAnthropic,
  toGemini,
  toOpenAI,
  toResponsesRequest,
} from '../../core/index.ts';
import type { Transcript } from './load-transcript.ts';

export const OUTPUT_FORMATS = [
  'neutral',
  'openai',
  'anthropic',
  'responses',
  'gemini',
  'trajectory',
] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The input's own format; Anthropic for Claude Code. */
export function defaultOutputFormat(input: Transcript['format']): OutputFormat {
  if (input === 'claude-code' || input === 'anthropic') return 'anthropic';
  if (input === 'trajectory') return 'trajectory';
  return input;
}

export function serializeTranscript(
  messages: readonly Message[],
  format: OutputFormat,
  header: Record<string, unknown> = {},
): string {
  let value: unknown;
  switch (format) {
    case 'neutral':
      value = messages;
      break;
    case 'openai':
      value = toOpenAI(messages);
      break;
    case 'anthropic':
      // A file, not a request: no prompt-cache breakpoints.
      value = toAnthropic(messages, { cacheControl: false });
      break;
    case 'responses':
      value = toResponsesRequest(messages);
      break;
    case 'gemini':
      value = toGemini(messages);
      break;
    case 'trajectory':
      value = { ...header, messages: toOpenAI(messages, { trajectory: true }) as JsonValue };
      break;
  }
  return `${JSON.stringify(value, null, 2)}\n`;
}
