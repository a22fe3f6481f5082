/**
 * The bounds audit: every number in every schema of configuration and of request bodies has real
 * bounds (a finite minimum and maximum inside the safe-integer range), so that nonsense like
 * `config.outputTruncation.maxLines: -5` is an `invalid_config` naming the field, never a silent
 * misbehaviour. Walks the zod schemas themselves, so a new unbounded field fails here.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';
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
import { adminRouteSchemas } from '../../src/worker/routes/admin.ts';
import { blobRouteSchemas } from '../../src/worker/routes/blobs.ts';
import { keyRouteSchemas } from '../../src/worker/routes/keys.ts';
import { memoryRouteSchemas } from '../../src/worker/routes/memories.ts';
import { recallRouteSchemas } from '../../src/worker/routes/session-recall.ts';
import { sessionRouteSchemas } from '../../src/worker/routes/sessions.ts';
import { uiRouteSchemas } from '../../src/worker/routes/ui.ts';
import { appendBodySchema } from '../../src/worker/session/formats.ts';
import { settingsSchema } from '../../src/worker/session/settings.ts';
import { unboundedNumbers } from './support/schema-bounds.ts';

const SCHEMAS: Record<string, z.core.$ZodType> = {
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
  ...Object.fromEntries(Object.entries(recallRouteSchemas).map(([k, v]) => [`recall ${k}`, v])),
  ...Object.fromEntries(Object.entries(memoryRouteSchemas).map(([k, v]) => [`memories ${k}`, v])),
  ...Object.fromEntries(Object.entries(blobRouteSchemas).map(([k, v]) => [`blobs ${k}`, v])),
  ...Object.fromEntries(Object.entries(keyRouteSchemas).map(([k, v]) => [`keys ${k}`, v])),
  ...Object.fromEntries(Object.entries(uiRouteSchemas).map(([k, v]) => [`ui ${k}`, v])),
  ...Object.fromEntries(Object.entries(adminRouteSchemas).map(([k, v]) => [`admin ${k}`, v])),
};

describe('bounds audit', () => {
  it('finds an unbounded number (the audit itself can fail)', () => {
    const loose = z.strictObject({
      a: z.number().int().min(0),
      b: z.number().max(3),
      c: z.number().min(0).max(3),
    });
    expect(unboundedNumbers(loose)).toEqual(['a', 'b']);
    expect(unboundedNumbers(z.strictObject({ a: z.array(z.number().min(0).max(1)) }))).toEqual([]);
    // the core's zod/mini schemas: bounds are checks, not methods
    const mini = zm.strictObject({
      a: zm.int().check(zm.gte(0)),
      b: zm.optional(zm.int().check(zm.gt(0), zm.lte(9))),
    });
    expect(unboundedNumbers(mini)).toEqual(['a']);
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
