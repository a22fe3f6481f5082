/**
 * How deep stored JSON may nest. Every structure the service keeps is walked by code that recurses
 * (validation, comparison, the structured clone of a Durable Object call): 2,500 levels overflow the
 * stack in workerd as in Node, so a value past the bound is refused at the door with a 400 naming where
 * it goes too deep — or, for what a model returned through the proxy, kept opaque (proxy/opaque-json.ts).
 * The walk itself keeps its own stack, so any depth is measured safely.
 */
import { CtxError } from '../../core/index.ts';

/** @default 100 levels: far beyond any tool schema or argument, far below what overflows a stack */
export const MAX_JSON_DEPTH = 100;

/** Path segments shown at most in an error (the rest is elided). */
const SHOWN = 8;

function pathOf(keys: ReadonlyArray<string | number>): string {
  const shown = keys.length > SHOWN ? [...keys.slice(0, SHOWN / 2), '…', ...keys.slice(-SHOWN / 2)] : keys;
  return shown
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : k === '…' ? '…' : i === 0 ? k : `.${k}`))
    .join('');
}

/** The path of the first value nested deeper than `max` (objects and arrays count), else undefined. */
export function tooDeep(value: unknown, max: number): Array<string | number> | undefined {
  interface Node {
    value: unknown;
    depth: number;
    key: string | number;
    parent: Node | undefined;
  }
  const stack: Node[] = [{ value, depth: 0, key: '', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (v === null || typeof v !== 'object') continue;
    if (node.depth >= max) {
      const keys: Array<string | number> = [];
      for (let n: Node | undefined = node; n?.parent; n = n.parent) keys.unshift(n.key);
      return keys;
    }
    const depth = node.depth + 1;
    if (Array.isArray(v))
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, key: i, parent: node });
    else for (const [key, child] of Object.entries(v)) stack.push({ value: child, depth, key, parent: node });
  }
  return undefined;
}

/** Throws a 400 naming the path when `value` nests deeper than `max`. */
export function checkJsonDepth(
  value: unknown,
  max = MAX_JSON_DEPTH,
  base: ReadonlyArray<string | number> = [],
): void {
  const keys = tooDeep(value, max);
  if (keys)
    throw new CtxError('invalid_input', `JSON nested deeper than ${max} levels (the service's bound) here`, {
      path: pathOf([...base, ...keys]) || 'body',
    });
}
