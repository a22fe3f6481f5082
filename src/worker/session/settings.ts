/**
 * Per-session settings chosen at creation (preset, budget, preset config, excluded tools), kept in
 * the session's Durable Object storage. Validated with zod; unknown fields are rejected.
 */
import * as z from 'zod';
import { budgetConfigSchema, jsonValueSchema } from '../../core/index.ts';

export const PRESETS = ['default', 'cowagent', 'co-cli', 'kosmokrator', 'tiancai'] as const;
export type PresetId = (typeof PRESETS)[number];

export const settingsSchema = z.strictObject({
  preset: z.enum(PRESETS).optional(),
  budget: budgetConfigSchema.optional(),
  /** Preset config sections (validated by the pipeline, which names the field at fault). */
  config: z.record(z.string(), jsonValueSchema).optional(),
  excludeTools: z.array(z.string().min(1)).max(100).optional(),
});

export type SessionSettings = z.infer<typeof settingsSchema>;
