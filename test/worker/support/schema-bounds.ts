/** Walks a zod schema for numbers without real bounds (the bounds audit, `bounds-audit.test.ts`). */
import type * as z from 'zod';

interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  options?: z.core.$ZodType[];
  valueType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  left?: z.core.$ZodType;
  right?: z.core.$ZodType;
  items?: z.core.$ZodType[];
  checks?: Array<{ _zod: { def: { check: string; value?: unknown } } }>;
}

/** Paths of the numbers in `schema` without a finite minimum and maximum. */
export function unboundedNumbers(schema: z.core.$ZodType, path = '', seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const walk = (s: z.core.$ZodType | undefined, p: string) => (s ? unboundedNumbers(s, p, seen) : []);
  switch (def.type) {
    case 'number': {
      // The bounds of the schema's own checks (`.min`/`.max`/`.positive`, or zod/mini's `z.gte`/`z.lte`):
      // works for zod classic and zod/mini schemas alike. `int` alone means the safe-integer range.
      let min = -Infinity;
      let max = Infinity;
      for (const check of def.checks ?? []) {
        const c = check._zod.def;
        if (c.check === 'greater_than' && typeof c.value === 'number') min = Math.max(min, c.value);
        if (c.check === 'less_than' && typeof c.value === 'number') max = Math.min(max, c.value);
      }
      const ok = min > Number.MIN_SAFE_INTEGER && max < Number.MAX_SAFE_INTEGER;
      return ok ? [] : [path || '(root)'];
    }
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([k, v]) => walk(v, path ? `${path}.${k}` : k));
    case 'array':
      return walk(def.element, `${path}[]`);
    case 'record':
      return walk(def.valueType, `${path}.*`);
    case 'union':
      return (def.options ?? []).flatMap((o) => walk(o, path));
    case 'intersection':
      return [...walk(def.left, path), ...walk(def.right, path)];
    case 'tuple':
      return (def.items ?? []).flatMap((o, i) => walk(o, `${path}[${i}]`));
    case 'pipe':
      return [...walk(def.in, path), ...walk(def.out, path)];
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return walk(def.innerType, path);
    default:
      return [];
  }
}
