/** What the AI SDK adapters share: JSON bags, optional members, the neutral form of a tool output. */
import type { ToolResultPart as AiToolResultPart, ModelMessage } from 'ai';
import type { JsonValue } from '../../core/index.ts';
import { toJsonSafe } from './json-safe.ts';

type ToolResultOutput = AiToolResultPart['output'];

export type { ToolResultOutput };
export type Bag = { [key: string]: JsonValue };
export type ModelPart = Exclude<ModelMessage['content'], string>[number];
export type ProviderOptions = Record<string, Record<string, JsonValue>>;

export const isBag = (v: unknown): v is Bag => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** The neutral text of a tool output, and whether it is an error. */
export function outputOf(o: ToolResultOutput): { output: string | JsonValue; isError: boolean } {
  switch (o.type) {
    case 'text':
      return { output: o.value, isError: false };
    case 'json':
      return { output: toJsonSafe(o.value), isError: false };
    case 'error-text':
      return { output: o.value, isError: true };
    case 'error-json':
      return { output: toJsonSafe(o.value), isError: true };
    case 'execution-denied':
      return { output: `Tool execution denied${o.reason ? `: ${o.reason}` : ''}`, isError: true };
    case 'content':
      return {
        output: o.value.map((v) => (v.type === 'text' ? v.text : `[${v.type}]`)).join('\n'),
        isError: false,
      };
  }
}

/** `{ [key]: value }`, or `{}` when the value is undefined (exactOptionalPropertyTypes). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}
