/** The OpenAI Chat Completions message as ctxkit reads it (and the trajectory format's extras). */
import * as z from 'zod/mini';
import { jsonValueSchema } from '../messages/schema.ts';

/**
 * A content part. Text, image and refusal parts are read into neutral parts with any further keys
 * (`cache_control`…) kept in `extra`; any other part with a `type` (`file`, `input_audio`…) passes
 * through as an opaque part, written back as it came.
 */
const contentPart = z.catchall(
  z.object({
    type: z.string().check(z.minLength(1)),
    text: z.optional(z.unknown()),
    image_url: z.optional(z.unknown()),
    refusal: z.optional(z.unknown()),
  }),
  jsonValueSchema,
);
export const textContent = z.catchall(
  z.object({ type: z.literal('text'), text: z.string() }),
  jsonValueSchema,
);
export const imageContent = z.catchall(
  z.object({
    type: z.literal('image_url'),
    image_url: z.strictObject({
      url: z.string().check(z.minLength(1)),
      detail: z.optional(z.enum(['auto', 'low', 'high'])),
    }),
  }),
  jsonValueSchema,
);
export const refusalContent = z.catchall(
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
  jsonValueSchema,
);
export type ContentPart = z.infer<typeof contentPart>;

/** A function or custom tool call; further keys (Gemini's `extra_content`…) are kept in `provider.openai`. */
const toolCallSchema = z.discriminatedUnion('type', [
  z.catchall(
    z.object({
      id: z.string().check(z.minLength(1)),
      type: z.literal('function'),
      function: z.object({ name: z.string().check(z.minLength(1)), arguments: z.string() }),
    }),
    jsonValueSchema,
  ),
  z.catchall(
    z.object({
      id: z.string().check(z.minLength(1)),
      type: z.literal('custom'),
      custom: z.object({ name: z.string().check(z.minLength(1)), input: z.string() }),
    }),
    jsonValueSchema,
  ),
]);

const usageSchema = z.record(z.string(), jsonValueSchema);
const extras = {
  usage: z.optional(usageSchema),
  meta: z.optional(z.record(z.string(), jsonValueSchema)),
  model: z.optional(z.string()),
};

export const openAIMessageSchema = z.discriminatedUnion(
  'role',
  [
    z.object({
      role: z.literal('system'),
      content: z.union([z.string(), z.array(contentPart)]),
      name: z.optional(z.string()),
      ...extras,
    }),
    z.object({
      role: z.literal('developer'),
      content: z.union([z.string(), z.array(contentPart)]),
      name: z.optional(z.string()),
      ...extras,
    }),
    z.object({
      role: z.literal('user'),
      content: z.union([z.string(), z.array(contentPart)]),
      name: z.optional(z.string()),
      ...extras,
    }),
    z.object({
      role: z.literal('assistant'),
      content: z.optional(z.union([z.string(), z.array(contentPart), z.null()])),
      name: z.optional(z.string()),
      refusal: z.optional(z.nullable(z.string())),
      tool_calls: z.optional(z.array(toolCallSchema)),
      reasoning: z.optional(z.string()),
      reasoning_content: z.optional(z.string()),
      ...extras,
    }),
    z.object({
      role: z.literal('tool'),
      tool_call_id: z.string().check(z.minLength(1)),
      content: z.union([z.string(), z.array(contentPart)]),
      name: z.optional(z.string()),
      ...extras,
    }),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? 'role must be one of system, developer, user, assistant, tool'
        : undefined,
  },
);

export type OpenAIMessage = z.infer<typeof openAIMessageSchema>;
