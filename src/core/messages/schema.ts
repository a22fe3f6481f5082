import * as z from 'zod/mini';
import { CtxError, formatPath } from '../errors.ts';
import { englishIssue } from './english-issues.ts';
import type { Dialect, JsonValue, Message } from './types.ts';

/** Every dialect with provider rules (`checkInvariants`, `repairMessages`, the pipeline's `dialect`). */
export const DIALECTS = ['openai', 'anthropic', 'responses', 'gemini'] as const satisfies readonly Dialect[];

export const jsonValueSchema: z.ZodMiniType<JsonValue> = z.lazy(() =>
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
const extraSchema = z.optional(z.record(z.string(), jsonValueSchema));
export const providerDataSchema = z.strictObject({
  openai: z.optional(providerBag),
  responses: z.optional(providerBag),
  gemini: z.optional(providerBag),
  framework: z.optional(providerBag),
});

export const textPartSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

export const imagePartSchema = z
  .strictObject({
    type: z.literal('image'),
    url: z.optional(z.string().check(z.minLength(1))),
    data: z.optional(z.string().check(z.minLength(1))),
    mediaType: z.optional(z.string()),
    detail: z.optional(z.enum(['auto', 'low', 'high'])),
    extra: extraSchema,
    provider: z.optional(providerDataSchema),
  })
  .check(
    z.refine((p) => p.url !== undefined || p.data !== undefined, { message: 'an image needs a url or data' }),
  );

export const reasoningPartSchema = z.strictObject({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.optional(z.string()),
  redacted: z.optional(z.boolean()),
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

export const toolCallPartSchema = z.strictObject({
  type: z.literal('tool-call'),
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  args: jsonValueSchema,
  argsText: z.optional(z.string()),
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

export const opaquePartSchema = z.strictObject({
  type: z.literal('opaque'),
  source: z.string().check(z.minLength(1)),
  kind: z.string(),
  value: jsonValueSchema,
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

const resultContentSchema = z.discriminatedUnion(
  'type',
  [textPartSchema, imagePartSchema, opaquePartSchema],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? 'unknown result content type (expected text, image or opaque)'
        : undefined,
  },
);

export const toolResultPartSchema = z.strictObject({
  type: z.literal('tool-result'),
  callId: z.string().check(z.minLength(1)),
  name: z.optional(z.string()),
  output: z.union([z.string(), jsonValueSchema]),
  content: z.optional(z.array(resultContentSchema)),
  isError: z.optional(z.boolean()),
  denied: z.optional(z.boolean()),
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

export const toolApprovalPartSchema = z.strictObject({
  type: z.literal('tool-approval'),
  callId: z.string().check(z.minLength(1)),
  approvalId: z.string().check(z.minLength(1)),
  phase: z.enum(['request', 'response']),
  approved: z.optional(z.boolean()),
  reason: z.optional(z.string()),
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

const PART_TYPES = [
  'text',
  'image',
  'reasoning',
  'tool-call',
  'tool-result',
  'opaque',
  'tool-approval',
] as const;

export const partSchema = z.discriminatedUnion(
  'type',
  [
    textPartSchema,
    imagePartSchema,
    reasoningPartSchema,
    toolCallPartSchema,
    toolResultPartSchema,
    opaquePartSchema,
    toolApprovalPartSchema,
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? `unknown part type (expected one of ${PART_TYPES.join(', ')})`
        : undefined,
  },
);

export const usageSchema = z.strictObject({
  inputTokens: z.int().check(z.nonnegative()),
  outputTokens: z.int().check(z.nonnegative()),
  totalTokens: z.optional(z.int().check(z.nonnegative())),
  cacheReadTokens: z.optional(z.int().check(z.nonnegative())),
  cacheWriteTokens: z.optional(z.int().check(z.nonnegative())),
  reasoningTokens: z.optional(z.int().check(z.nonnegative())),
  stopReason: z.optional(z.string()),
});

export const metaSchema = z.catchall(
  z.object({
    kind: z.optional(z.string()),
    agentVisible: z.optional(z.boolean()),
    userVisible: z.optional(z.boolean()),
    pinned: z.optional(z.boolean()),
    createdAt: z.optional(z.string()),
  }),
  jsonValueSchema,
);

export const roleSchema = z.enum(['system', 'user', 'assistant', 'tool'], {
  error: (iss) =>
    iss.input === undefined ? 'role is required' : 'role must be one of system, user, assistant, tool',
});

export const messageSchema = z.strictObject({
  id: z.string().check(z.minLength(1)),
  role: roleSchema,
  parts: z.array(partSchema),
  meta: z.optional(metaSchema),
  usage: z.optional(usageSchema),
  model: z.optional(z.string()),
  name: z.optional(z.string()),
  extra: extraSchema,
  provider: z.optional(providerDataSchema),
});

export const messagesSchema = z.array(messageSchema);

/** Turns the first zod issue into a `CtxError` that names the JSON path and the reason. */
export function zodToCtxError(error: z.core.$ZodError, basePath: readonly PropertyKey[] = []): CtxError {
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

/**
 * Parse options for every core schema: zod/mini loads no locale (its issues would all read "Invalid
 * input"), so each parse carries zod's English messages, the same ones zod classic prints
 * (`englishIssue`), without touching the caller's global zod config.
 */
export const PARSE_IN_ENGLISH: z.core.ParseContext<z.core.$ZodIssue> = { error: englishIssue };

/**
 * Validates configuration (a stage's options, the cache rules); a bad value throws
 * `CtxError('invalid_config')` naming `<at>.<field>`.
 */
export function parseOptions<S extends z.ZodMiniType>(schema: S, input: unknown, at: string): z.output<S> {
  const result = z.safeParse(schema, input ?? {}, PARSE_IN_ENGLISH);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? `${at}.${issue.path.map(String).join('.')}` : at;
  throw new CtxError('invalid_config', issue?.message ?? 'invalid options', {
    path: field,
    cause: result.error,
  });
}

/** Validates with `schema`, throwing a `CtxError` naming the JSON path on failure. */
export function parseWith<T>(
  schema: z.ZodMiniType<T>,
  input: unknown,
  basePath: readonly PropertyKey[] = [],
): T {
  const result = z.safeParse(schema, input, PARSE_IN_ENGLISH);
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

/** `jsonValueSchema` in a plain loop (finite numbers, plain objects), for `quickValidMessage`. */
function isJson(v: unknown, depth = 0): boolean {
  if (typeof v === 'string' || typeof v === 'boolean' || v === null) return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object' || depth > 256) return false;
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  // zod's record refuses symbol keys.
  return (
    isPlain(v) &&
    Object.getOwnPropertySymbols(v).length === 0 &&
    Object.values(v).every((x) => isJson(x, depth + 1))
  );
}

function isPlain(v: unknown): v is Record<string, unknown> {
  const proto = typeof v === 'object' && v !== null && Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === 'string';
const optStr: Check = (v) => v === undefined || str(v);
const optBool: Check = (v) => v === undefined || typeof v === 'boolean';
const filled: Check = (v) => str(v) && v !== '';
const int: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const optInt: Check = (v) => v === undefined || int(v);
const bag: Check = (v) => v === undefined || (isPlain(v) && isJson(v));

/** `o` is a plain object with only the keys of `fields`, each passing its check (absent is `undefined`). */
function fits(o: unknown, fields: Record<string, Check>): boolean {
  if (!isPlain(o)) return false;
  for (const k in o) if (Object.hasOwn(o, k) && !Object.hasOwn(fields, k)) return false;
  for (const k in fields) if (!fields[k]!(o[k])) return false;
  return true;
}

/** The part types the quick check reads, with `provider` data (and redacted reasoning) left to zod. */
const part = (fields: Record<string, Check>) => ({ type: str, extra: bag, ...fields });
const PARTS: Record<string, Record<string, Check>> = {
  text: part({ text: str }),
  reasoning: part({ text: str, signature: optStr }),
  'tool-call': part({ id: filled, name: filled, args: isJson, argsText: optStr }),
  'tool-result': part({
    callId: filled,
    name: optStr,
    output: isJson,
    isError: optBool,
    denied: optBool,
  }),
};

const MESSAGE: Record<string, Check> = {
  id: filled,
  role: (v) => v === 'user' || v === 'assistant' || v === 'tool' || v === 'system',
  parts: (v) => Array.isArray(v) && v.every((p) => isPlain(p) && fits(p, PARTS[p.type as string] ?? {})),
  meta: (v) =>
    v === undefined ||
    (isPlain(v) &&
      Object.entries(v).every(([k, x]) =>
        k === 'kind' || k === 'createdAt'
          ? optStr(x)
          : k === 'agentVisible' || k === 'userVisible' || k === 'pinned'
            ? optBool(x)
            : x !== undefined && isJson(x),
      )),
  usage: (v) =>
    v === undefined ||
    fits(v, {
      inputTokens: int,
      outputTokens: int,
      totalTokens: optInt,
      cacheReadTokens: optInt,
      cacheWriteTokens: optInt,
      reasoningTokens: optInt,
      stopReason: optStr,
    }),
  model: optStr,
  name: optStr,
  extra: bag,
};

/**
 * A quick check of a message in plain loops, for the shapes messages usually have (text, reasoning,
 * tool calls and results): `true` only for a message `messageSchema` accepts; `false` means "ask
 * zod", which accepts the rarer shapes (images, opaque parts, approvals, result content, provider
 * data) or names what is wrong. Every new message of every pre-flight is checked; zod took 15–25 µs
 * a message.
 */
export function quickValidMessage(m: unknown): m is Message {
  return fits(m, MESSAGE);
}
