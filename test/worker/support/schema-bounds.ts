/** Walks a zod schema for numbers without real bounds (the bounds audit, `bounds-audit.test.ts`). */
import type { z } from 'zod';

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
}

/** Paths of the numbers in `schema` without a finite minimum and maximum. */
export function unboundedNumbers(schema: z.ZodType, path = '', seen = new Set<unknown>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const walk = (s: z.ZodType | undefined, p: string) => (s ? unboundedNumbers(s, p, seen) : []);
  switch (def.type) {
    case 'number': {
      const n = schema as unknown as { minValue: number | null; maxValue: number | null };
      const ok =
        n.minValue !== null &&
        n.maxValue !== null &&
        n.minValue > Number.MIN_SAFE_INTEGER &&
        n.maxValue < Number.MAX_SAFE_INTEGER;
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
