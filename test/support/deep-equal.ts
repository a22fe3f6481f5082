/**
 * Structural equality for plain data (objects, arrays, primitives, Maps, Sets, typed arrays).
 * `loose` ignores keys whose value is undefined, like vitest's `toEqual`.
 */
export function isDeepStrictEqual(a: unknown, b: unknown, loose = false): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => isDeepStrictEqual(x, bb[i], loose));
  }
  if (a instanceof Map || b instanceof Map || a instanceof Set || b instanceof Set)
    return isDeepStrictEqual([...(a as Map<unknown, unknown>)], [...(b as Map<unknown, unknown>)], loose);
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b))
    return isDeepStrictEqual(
      Array.from(a as unknown as ArrayLike<number>),
      Array.from(b as unknown as ArrayLike<number>),
    );
  const keys = (o: object) =>
    Object.keys(o).filter((k) => !loose || (o as Record<string, unknown>)[k] !== undefined);
  const ka = keys(a);
  const kb = keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) &&
      isDeepStrictEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], loose),
  );
}
