/**
 * The bounds audit: every number in every schema of configuration and of request bodies has real
 * bounds (a finite minimum and maximum inside the safe-integer range), so that nonsense like
 * `config.outputTruncation.maxLines: -5` is an `invalid_config` naming the field, never a silent
 * misbehaviour. Walks the zod schemas themselves, so a new unbounded field fails here.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  budgetConfigSchema,
  compactionOptionsSchema,
  cowagentTrimOptionsSchema,
  createPipeline,
  dedupOptionsSchema,
  emergencyTrimOptionsSchema,
  historicalTruncationOptionsSchema,
  kosmokratorCompactionOptionsSchema,
  outputTruncationOptionsSchema,
  PRESET_NAMES,
  presetConfigSchema,
  pruningOptionsSchema,
  slidingWindowOptionsSchema,
  tiancaiCompactionOptionsSchema,
  toolArchivingOptionsSchema,
} from '../../src/core/index.ts';
import { blobRouteSchemas } from '../../src/worker/routes/blobs.ts';
import { keyRouteSchemas } from '../../src/worker/routes/keys.ts';
import { memoryRouteSchemas } from '../../src/worker/routes/memories.ts';
import { sessionRouteSchemas } from '../../src/worker/routes/sessions.ts';
import { appendBodySchema } from '../../src/worker/session/formats.ts';
import { settingsSchema } from '../../src/worker/session/settings.ts';

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

const SCHEMAS: Record<string, z.ZodType> = {
  budget: budgetConfigSchema,
  'config.outputTruncation': outputTruncationOptionsSchema,
  'config.historicalTruncation': historicalTruncationOptionsSchema,
  'config.dedup': dedupOptionsSchema,
  'config.pruning': pruningOptionsSchema,
  'config.archiving': toolArchivingOptionsSchema,
  'config.cowagentTrim': cowagentTrimOptionsSchema,
  'config.slidingWindow': slidingWindowOptionsSchema,
  'config.compaction (default)': compactionOptionsSchema,
  'config.compaction (kosmokrator)': kosmokratorCompactionOptionsSchema,
  'config.compaction (tiancai)': tiancaiCompactionOptionsSchema,
  'config.emergencyTrim': emergencyTrimOptionsSchema,
  ...Object.fromEntries(PRESET_NAMES.map((p) => [`config (${p})`, presetConfigSchema(p)])),
  'session settings': settingsSchema,
  'append body': appendBodySchema,
  ...Object.fromEntries(Object.entries(sessionRouteSchemas).map(([k, v]) => [`sessions ${k}`, v])),
  ...Object.fromEntries(Object.entries(memoryRouteSchemas).map(([k, v]) => [`memories ${k}`, v])),
  ...Object.fromEntries(Object.entries(blobRouteSchemas).map(([k, v]) => [`blobs ${k}`, v])),
  ...Object.fromEntries(Object.entries(keyRouteSchemas).map(([k, v]) => [`keys ${k}`, v])),
};

describe('bounds audit', () => {
  it('finds an unbounded number (the audit itself can fail)', async () => {
    const { z } = await import('zod');
    const loose = z.strictObject({
      a: z.number().int().min(0),
      b: z.number().max(3),
      c: z.number().min(0).max(3),
    });
    expect(unboundedNumbers(loose)).toEqual(['a', 'b']);
    expect(unboundedNumbers(z.strictObject({ a: z.array(z.number().min(0).max(1)) }))).toEqual([]);
  });

  it.each(Object.entries(SCHEMAS))('%s: every number has a finite minimum and maximum', (_, schema) => {
    expect(unboundedNumbers(schema)).toEqual([]);
  });

  it('refuses config.outputTruncation.maxLines: -5 with invalid_config naming the field', () => {
    let caught: unknown;
    try {
      createPipeline({ preset: 'default', config: { outputTruncation: { maxLines: -5 } } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'invalid_config', path: 'outputTruncation.maxLines' });
  });
});
