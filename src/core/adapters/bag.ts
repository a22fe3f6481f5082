/** A provider's JSON object as the adapters read and write it, and the helpers every dialect uses on it. */
import type { JsonValue } from '../messages/types.ts';

export type Bag = { [key: string]: JsonValue };

/** `v` when it is a JSON object, else an empty one. */
export function bag(v: JsonValue | undefined): Bag {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/** A copy of `obj` without `keys` (and without keys whose value is `undefined`), key order kept. */
export function without(obj: Bag, ...keys: string[]): Bag {
  const out: Bag = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && !keys.includes(k)) out[k] = v;
  return out;
}
