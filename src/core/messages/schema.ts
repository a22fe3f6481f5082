import { z } from 'zod';
import { CtxError, formatPath } from '../errors.ts';
import type { Dialect, JsonValue, Message } from './types.ts';

/** Every dialect with provider rules (`checkInvariants`, `repairMessages`, the pipeline's `dialect`). */
export const DIALECTS = ['openai', 'anthropic', 'responses', 'gemini'] as const satisfies readonly Dialect[];

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

const providerBag = z.record(z.string(), jsonValueSchema);
export const providerDataSchema = z.strictObject({
  responses: providerBag.optional(),
  gemini: providerBag.optional(),
});

export const textPartSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  extra: z.record(z.string(), jsonValueSchema).optional(),
  provider: providerDataSchema.optional(),
});

export const imagePartSchema = z
  .strictObject({
    type: z.literal('image'),
    url: z.string().min(1).optional(),
    data: z.string().min(1).optional(),
    mediaType: z.string().optional(),
    detail: z.enum(['auto', 'low', 'high']).optional(),
    provider: providerDataSchema.optional(),
  })
  .refine((p) => p.url !== undefined || p.data !== undefined, { message: 'an image needs a url or data' });

export const reasoningPartSchema = z.strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  redacted: z.boolean().optional(),
  provider: providerDataSchema.optional(),
});

export const toolCallPartSchema = z.strictObject({
  type: z.literal('tool-call'),
  id: z.string().min(1),
  name: z.string().min(1),
  args: jsonValueSchema,
  argsText: z.string().optional(),
  provider: providerDataSchema.optional(),
});

export const toolResultPartSchema = z.strictObject({
  type: z.literal('tool-result'),
  callId: z.string().min(1),
  name: z.string().optional(),
  output: z.union([z.string(), jsonValueSchema]),
  isError: z.boolean().optional(),
  provider: providerDataSchema.optional(),
});

const PART_TYPES = ['text', 'image', 'reasoning', 'tool-call', 'tool-result'] as const;

export const partSchema = z.discriminatedUnion(
  'type',
  [textPartSchema, imagePartSchema, reasoningPartSchema, toolCallPartSchema, toolResultPartSchema],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `unknown part type (expected one of ${PART_TYPES.join(', ')})`
        : undefined,
  },
);

export const usageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative().optional(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  stopReason: z.string().optional(),
});

export const metaSchema = z
  .object({
    kind: z.string().optional(),
    agentVisible: z.boolean().optional(),
    userVisible: z.boolean().optional(),
    pinned: z.boolean().optional(),
    createdAt: z.string().optional(),
  })
  .catchall(jsonValueSchema);

export const roleSchema = z.enum(['system', 'user', 'assistant', 'tool'], {
  error: (iss) =>
    iss.input === undefined ? 'role is required' : 'role must be one of system, user, assistant, tool',
});

export const messageSchema = z.strictObject({
  id: z.string().min(1),
  role: roleSchema,
  parts: z.array(partSchema),
  meta: metaSchema.optional(),
  usage: usageSchema.optional(),
  model: z.string().optional(),
  name: z.string().optional(),
  provider: providerDataSchema.optional(),
});

export const messagesSchema = z.array(messageSchema);

/** Turns the first zod issue into a `CtxError` that names the JSON path and the reason. */
export function zodToCtxError(error: z.ZodError, basePath: readonly PropertyKey[] = []): CtxError {
  const issue = error.issues[0];
  if (!issue)
    return new CtxError('invalid_input', 'invalid input', { path: formatPath(basePath), cause: error });
  const { path, message } = mostSpecific(issue, []);
  return new CtxError('invalid_input', message, { path: formatPath([...basePath, ...path]), cause: error });
}

type Issue = z.core.$ZodIssue;

/**
 * For a union (`string | Part[]`), zod reports "Invalid input" at the union itself; the useful error is
 * the one from the branch that got furthest, e.g. `content[0].type` of the array branch.
 */
function mostSpecific(issue: Issue, prefix: PropertyKey[]): { path: PropertyKey[]; message: string } {
  const here = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union' || !('errors' in issue) || issue.errors.length === 0)
    return { path: here, message: issue.message };
  let best: { path: PropertyKey[]; message: string } | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first) continue;
    const candidate = mostSpecific(first, here);
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  if (best && best.path.length > here.length) return best;
  return { path: here, message: unionTypeMessage(issue.errors) ?? issue.message };
}

/** Every branch wanted another type here: "is required" or "expected string or array, received number". */
function unionTypeMessage(branches: readonly (readonly Issue[])[]): string | undefined {
  const expected: string[] = [];
  let received: string | undefined;
  for (const branch of branches) {
    const first = branch[0];
    if (first?.code !== 'invalid_type' || first.path.length > 0) return undefined;
    expected.push(String(first.expected));
    received ??= /received (\w+)/.exec(first.message)?.[1];
  }
  if (received === 'undefined') return 'is required';
  return `expected ${[...new Set(expected)].join(' or ')}${received ? `, received ${received}` : ''}`;
}

/** Validates with `schema`, throwing a `CtxError` naming the JSON path on failure. */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown, basePath: readonly PropertyKey[] = []): T {
  const result = schema.safeParse(input);
  if (!result.success) throw zodToCtxError(result.error, basePath);
  return result.data;
}

/** Validates neutral messages; throws `CtxError('invalid_input')` naming the JSON path. */
export function parseMessages(input: unknown, basePath: readonly PropertyKey[] = ['messages']): Message[] {
  return parseWith(messagesSchema, input, basePath) as Message[];
}

export function parseMessage(input: unknown, basePath: readonly PropertyKey[] = ['message']): Message {
  return parseWith(messageSchema, input, basePath) as Message;
}
