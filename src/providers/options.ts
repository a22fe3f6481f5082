/**
 * Options of the OpenAI-compatible summarizer, their defaults (declared once) and their validation.
 */
import * as z from 'zod';
import { CtxError, formatPath, type TokenCounter } from '../core/index.ts';
import { realSleep } from './retry.ts';
import type { OpenAIChatClient, OpenAIClientOptions, OpenAIFetch } from './sdk-types.ts';

export interface OpenAISummarizerOptions {
  /** Chat Completions base URL (OpenAI, Workers AI `…/ai/v1`, Ollama `http://localhost:11434/v1`, vLLM). @default 'https://api.openai.com/v1' */
  baseURL?: string;
  /** Bearer key. Local servers (Ollama, vLLM) need none. @default 'no-key' */
  apiKey?: string;
  /** Primary model: used by `manual-compact`, and by every purpose when no summarization model is set. */
  model: string;
  /** Cheaper model for the automatic purposes (every purpose except `manual-compact`). @default model */
  summarizationModel?: string;
  /** Per-attempt time limit, the whole streamed answer included. @default 60000 */
  timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx and connection errors. @default 2 */
  maxRetries?: number;
  /** Ask for a streamed answer and accumulate the deltas. @default false */
  stream?: boolean;
  /** With `stream`, ask for usage in the last chunk (`stream_options.include_usage`). @default true */
  streamUsage?: boolean;
  /** Name of the output cap parameter: newer OpenAI models only accept `max_completion_tokens`. @default 'max_tokens' */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /**
   * 002 memories: in the summary call (one JSON answer, what the code does, SEED-RULES §6 #20), or in
   * a second, best-effort call on the summary (what the seed doc describes). @default 'same-call'
   */
  memoryExtraction?: 'same-call' | 'second-call';
  /** First backoff delay, doubled per retry. @default 500 */
  initialRetryDelayMs?: number;
  /** Cap on any retry delay, the server's `retry-after` included. @default 30000 */
  maxRetryDelayMs?: number;
  /** Name of the summarizer in reports. @default 'openai' */
  name?: string;
  /**
   * `cached`: a compaction's summary is asked on the agent's last send — its system prompt, messages
   * and tool schemas (tool choice `none`), then one instruction — so the provider serves that send
   * from its prompt cache, as Claude Code does. The call then goes to `model`, the agent's own (a cache
   * belongs to one model), not to `summarizationModel`. @default transcript
   */
  prefix?: 'cached';
  /** OpenAI's `prompt_cache_key` for those calls: the key the agent's own calls carry, if it sets one (at most 64 characters). */
  promptCacheKey?: string;
  /** `fetch` handed to the SDK (Workers, tests); called with `redirect: 'manual'` (a redirect is not followed). */
  fetch?: OpenAIFetch;
  /**
   * Builds the client (an `OpenAI`, or anything with `chat.completions.create`). Pass the options on:
   * their `fetch` is the one that does not follow redirects. @default (o) => new OpenAI(o)
   */
  clientFactory?: (options: OpenAIClientOptions) => OpenAIChatClient;
  /** Sleep between retries. @default an abortable setTimeout */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Clock for HTTP-date `retry-after` values. @default Date.now */
  now?: () => number;
  /** Estimates usage when the provider reports none. @default chars/4 over code points */
  counter?: TokenCounter;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export const OPENAI_SUMMARIZER_DEFAULTS = {
  baseURL: 'https://api.openai.com/v1',
  apiKey: 'no-key',
  timeoutMs: 60_000,
  maxRetries: 2,
  stream: false,
  streamUsage: true,
  maxTokensParam: 'max_tokens',
  memoryExtraction: 'same-call',
  initialRetryDelayMs: 500,
  maxRetryDelayMs: 30_000,
  name: 'openai',
} satisfies Partial<OpenAISummarizerOptions>;

const nonEmpty = z.string().trim().min(1, 'must not be empty');

const dataSchema = z.object({
  baseURL: z.url({ message: 'must be an http(s) URL', protocol: /^https?$/ }).optional(),
  apiKey: z.string().optional(),
  model: nonEmpty,
  summarizationModel: nonEmpty.optional(),
  timeoutMs: z.int().positive().max(3_600_000).optional(),
  maxRetries: z.int().min(0).max(10).optional(),
  stream: z.boolean().optional(),
  streamUsage: z.boolean().optional(),
  maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  memoryExtraction: z.enum(['same-call', 'second-call']).optional(),
  initialRetryDelayMs: z.number().min(0).optional(),
  maxRetryDelayMs: z.number().min(0).optional(),
  name: nonEmpty.optional(),
  prefix: z.literal('cached', { message: "must be 'cached' or left out" }).optional(),
  promptCacheKey: nonEmpty.max(64, 'must be at most 64 characters (OpenAI refuses longer keys)').optional(),
});

/** Validates with zod; the first issue becomes a `CtxError('invalid_config')` naming the field. */
export function parseConfig<T>(schema: z.ZodType<T>, input: unknown, base: readonly PropertyKey[]): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new CtxError('invalid_config', issue.message, { path: formatPath([...base, ...issue.path]) });
}

type Unset =
  | 'summarizationModel'
  | 'fetch'
  | 'clientFactory'
  | 'counter'
  | 'onRetry'
  | 'prefix'
  | 'promptCacheKey';
export type ResolvedOptions = Required<Omit<OpenAISummarizerOptions, Unset>> &
  Pick<OpenAISummarizerOptions, Unset>;

export function resolveOptions(options: OpenAISummarizerOptions): ResolvedOptions {
  const { fetch, clientFactory, sleep, random, now, counter, onRetry, ...data } = options;
  const parsed = parseConfig(dataSchema, data, ['options']);
  const out: ResolvedOptions = {
    ...OPENAI_SUMMARIZER_DEFAULTS,
    sleep: sleep ?? realSleep,
    random: random ?? Math.random,
    now: now ?? Date.now,
    model: parsed.model,
  };
  for (const [k, v] of Object.entries(parsed))
    if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  if (fetch) out.fetch = fetch;
  if (clientFactory) out.clientFactory = clientFactory;
  if (counter) out.counter = counter;
  if (onRetry) out.onRetry = onRetry;
  return out;
}
