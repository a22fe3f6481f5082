/** JSON bags: Agents SDK items are JSON (sessions store them as such). */
import type { JsonValue } from '../../core/index.ts';

export type Bag = { [key: string]: JsonValue };

export const isBag = (v: unknown): v is Bag => typeof v === 'object' && v !== null && !Array.isArray(v);
export const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/** A JSON copy (`undefined` members dropped). */
export function json<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
