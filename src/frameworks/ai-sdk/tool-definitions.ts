/**
 * The JSON Schema definitions of an AI SDK tool set, to count in the estimate: frameworks hold tools
 * with zod or Standard Schema input schemas, not the JSON the provider is sent. Read in order: an AI
 * SDK `jsonSchema(...)` schema (its `jsonSchema`, possibly a promise), a Standard JSON Schema converter
 * (`~standard.jsonSchema.input`), a zod 4 schema (`z.toJSONSchema`); a schema none of them reads counts
 * as `{}`.
 */
import * as z from 'zod';
import type { JsonValue, ToolDefinition } from '../../core/index.ts';
import type { CtxkitOptions } from '../options.ts';

/**
 * The options of the AI SDK entries (and Mastra's): every entry's, with the tools in the AI SDK's shape.
 * Here, not beside `ctxkitPrepareStep`, so that Mastra's declarations do not reach the `ai` package's.
 */
export interface CtxkitAiSdkOptions extends CtxkitOptions {
  /**
   * The agent's tools, counted in the estimate when the hook is not handed them (prepareStep is not):
   * the tool set itself (zod, Standard Schema or `jsonSchema()` input schemas) or JSON definitions.
   */
  tools?: readonly ToolDefinition[] | Readonly<Record<string, ToolLike>>;
}

export interface ToolLike {
  /** A string, or (AI SDK 7) a function of the tool context: only a string is counted. */
  description?: unknown;
  inputSchema?: unknown;
}

type Converter = { input?: (o: { target: string }) => unknown };

async function schemaJson(schema: unknown): Promise<unknown> {
  if (typeof schema !== 'object' || schema === null) return {};
  if ('jsonSchema' in schema) return await (schema as { jsonSchema: unknown }).jsonSchema;
  const standard = (schema as { '~standard'?: { jsonSchema?: Converter } })['~standard'];
  if (typeof standard?.jsonSchema?.input === 'function')
    return standard.jsonSchema.input({ target: 'draft-07' });
  if ('_zod' in schema) return z.toJSONSchema(schema as z.ZodType);
  return {};
}

/** `[{ name, description, parameters }]` for every tool of the set. */
export async function toolDefinitions(tools: Readonly<Record<string, ToolLike>>): Promise<JsonValue[]> {
  return Promise.all(
    Object.entries(tools).map(async ([name, t]) => {
      let parameters: unknown;
      try {
        parameters = await schemaJson(t.inputSchema);
      } catch {
        parameters = {};
      }
      return JSON.parse(
        JSON.stringify({
          name,
          ...(typeof t.description === 'string' ? { description: t.description } : {}),
          parameters,
        }),
      ) as JsonValue;
    }),
  );
}
