/**
 * Tiny builders for messages, used by tests, fixtures and library users:
 * `user('hi')`, `assistant('ok', [toolCall('c1', 'grep', { q: 'x' })])`, `toolResult('c1', 'grep', 'out')`.
 */
import type { ImagePart, JsonValue, Message, MessageMeta, Part, ToolCallPart } from './types.ts';

let counter = 0;
function autoId(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}`;
}

export interface BuildOptions {
  id?: string;
  meta?: MessageMeta;
}

function build(role: Message['role'], parts: Part[], options: BuildOptions, prefix: string): Message {
  const message: Message = { id: options.id ?? autoId(prefix), role, parts };
  if (options.meta) message.meta = options.meta;
  return message;
}

export function system(text: string, options: BuildOptions = {}): Message {
  return build('system', [{ type: 'text', text }], options, 's');
}

export function user(text: string | Part[], options: BuildOptions = {}): Message {
  const parts: Part[] = typeof text === 'string' ? [{ type: 'text', text }] : text;
  return build('user', parts, options, 'u');
}

export function assistant(text: string, calls: ToolCallPart[] = [], options: BuildOptions = {}): Message {
  const parts: Part[] = text === '' ? [...calls] : [{ type: 'text', text }, ...calls];
  return build('assistant', parts, options, 'a');
}

export function toolCall(id: string, name: string, args: JsonValue = {}): ToolCallPart {
  return { type: 'tool-call', id, name, args };
}

export function toolResult(
  callId: string,
  name: string,
  output: string | JsonValue,
  options: BuildOptions & { isError?: boolean } = {},
): Message {
  const part: Part = { type: 'tool-result', callId, name, output };
  if (options.isError) part.isError = true;
  return build('tool', [part], options, 't');
}

export function image(url: string, mediaType?: string): ImagePart {
  return mediaType ? { type: 'image', url, mediaType } : { type: 'image', url };
}

/** Resets the automatic id counter (tests that compare ids). */
export function resetBuilderIds(): void {
  counter = 0;
}
