import { CtxError } from '../errors.ts';
import type { JsonValue } from '../messages/types.ts';

/** Parses tool-call arguments given as a JSON string. An empty string means no arguments (`{}`). */
export function parseArgs(raw: unknown, path: string): JsonValue {
  if (typeof raw !== 'string')
    throw new CtxError('invalid_input', 'tool arguments must be a JSON string', { path });
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as JsonValue;
  } catch (cause) {
    throw new CtxError('invalid_input', `tool arguments are not valid JSON (${(cause as Error).message})`, {
      path,
      cause,
    });
  }
}
