/**
 * Per-session settings chosen at creation (preset, budget, preset config, excluded tools), kept in
 * the session's Durable Object storage. Validated with zod; unknown fields are rejected.
 */
import * as z from 'zod';
import { budgetConfigSchema, CtxError, jsonValueSchema } from '../../core/index.ts';

export const PRESETS = ['default', 'cowagent', 'co-cli', 'kosmokrator', 'tiancai'] as const;
export type PresetId = (typeof PRESETS)[number];

/**
 * What of the tenant's memory and other sessions reaches this session's system prompt. Recall and
 * previous sessions are off unless the session asks: a session sees only its own conversation, the
 * tenant's shared memories and what ctxkit extracted in it. `project` turns a source on for sessions
 * of the same project (never for a session without a project, which would otherwise see every
 * project-less session of the tenant).
 */
export const memorySettingsSchema = z.strictObject({
  /**
   * Which stored memories the session's memory block may hold: `shared`, the tenant's shared ones in
   * the session's project (and every project's) with the session's own; `own`, only what ctxkit
   * extracted in this session; `off`, none. @default 'shared' (`own` for a session the proxy creates)
   */
  memories: z.enum(['shared', 'own', 'off']).optional(),
  /** `## Session Recall`: up to `recallLimit` messages of the project's other sessions. @default 'off' */
  recall: z.enum(['off', 'project']).optional(),
  /** `## Previous Sessions`: compaction summaries of the project's sessions. @default 'off' */
  previousSessions: z.enum(['off', 'project']).optional(),
  /** Recalled messages at most. @default 3 */
  recallLimit: z.number().int().min(1).max(10).optional(),
});

export type MemorySettings = z.infer<typeof memorySettingsSchema>;

export const settingsSchema = z.strictObject({
  preset: z.enum(PRESETS).optional(),
  budget: z.optional(budgetConfigSchema),
  /** Preset config sections (validated by the pipeline, which names the field at fault). */
  config: z.record(z.string(), jsonValueSchema).optional(),
  excludeTools: z.array(z.string().min(1)).max(100).optional(),
  memory: memorySettingsSchema.optional(),
  /**
   * What leaves the context is archived in the session and the recall tools answer over it
   * (`/v1/sessions/:id/recall`, `/reread`, `/remember`; the proxy's `x-ctxkit-tools`); the budget then
   * counts the tools' definitions, which the client is to send. @default false (on for a session the
   * proxy creates or is called with `x-ctxkit-tools`)
   */
  recall: z.boolean().optional(),
});

export type SessionSettings = z.infer<typeof settingsSchema>;

/**
 * Characters a session's settings take as JSON at most: they are one value of the session's Durable
 * Object, which production holds to 2 MiB (local runs do not), and a create body may be as large as
 * an operator lets `MAX_BODY_BYTES` be. @default 524288 (512 Ki characters: at most 1 MiB stored)
 */
export const MAX_SETTINGS_CHARS = 512 * 1024;

/** `settings`, or a 413 naming them when their JSON passes `MAX_SETTINGS_CHARS`. */
export function boundedSettings(settings: SessionSettings): SessionSettings {
  const chars = JSON.stringify(settings).length;
  if (chars > MAX_SETTINGS_CHARS)
    throw new CtxError(
      'payload_too_large',
      `the session's settings are ${chars} characters of JSON; a session keeps at most ${MAX_SETTINGS_CHARS}`,
      { path: 'settings' },
    );
  return settings;
}
