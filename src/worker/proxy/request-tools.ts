/**
 * The `tools` field of a proxied request body. The body comes from `JSON.parse`, so every element is
 * a JSON value by construction: checking it against the recursive `jsonValueSchema` again walked and
 * copied the whole tool list on every call (Claude Code resends some 20 tools, tens of KB of JSON
 * Schema, each turn). The shape is still checked: an array, or absent.
 */
import * as z from 'zod';
import type { JsonValue } from '../../core/index.ts';

export const requestToolsSchema = z.array(z.unknown()) as unknown as z.ZodType<JsonValue[], unknown[]>;

/** The `model` field: a name, bounded (the pipeline prices the model's prompt cache by it). */
export const requestModelSchema = z
  .string()
  .min(1, 'must name a model')
  .max(256, 'must be at most 256 characters');
