/**
 * Summarizer configuration from environment variables: `process.env` in Node and the CLI, vars and
 * secrets in the Worker (same function, no runtime access of its own).
 */
import * as z from 'zod';
import { CtxError, type Summarizer } from '../core/index.ts';
import { createOpenAISummarizer } from './openai-summarizer.ts';
import { OPENAI_SUMMARIZER_DEFAULTS, type OpenAISummarizerOptions, parseConfig } from './options.ts';
import { withFallback } from './with-fallback.ts';

/** Model used against the default OpenAI endpoint when `CTXKIT_LLM_MODEL` is unset. @default 'gpt-4o-mini' */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

export const NO_KEY_MESSAGE =
  'no API key configured (CTXKIT_LLM_API_KEY or OPENAI_API_KEY); using the deterministic summarizer';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());
const intVar = (min: number, max: number) =>
  opt(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`)),
  );
const boolVar = opt(
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'].includes(v), 'must be true or false')
    .transform((v) => ['1', 'true', 'yes', 'on'].includes(v)),
);

const urlVar = opt(
  z
    .string()
    .trim()
    .pipe(z.url({ message: 'must be an http(s) URL', protocol: /^https?$/ })),
);

const envSchema = z.object({
  CTXKIT_LLM_BASE_URL: urlVar,
  OPENAI_BASE_URL: urlVar,
  CTXKIT_LLM_API_KEY: opt(z.string().trim()),
  OPENAI_API_KEY: opt(z.string().trim()),
  CTXKIT_LLM_MODEL: opt(z.string().trim()),
  CTXKIT_SUMMARY_MODEL: opt(z.string().trim()),
  CTXKIT_LLM_TIMEOUT_MS: intVar(1, 3_600_000),
  CTXKIT_LLM_MAX_RETRIES: intVar(0, 10),
  CTXKIT_LLM_STREAM: boolVar,
  CTXKIT_LLM_MAX_TOKENS_PARAM: opt(
    z.enum(['max_tokens', 'max_completion_tokens'], {
      message: 'must be max_tokens or max_completion_tokens',
    }),
  ),
});

export type SummarizerEnvConfig =
  | { kind: 'llm'; options: OpenAISummarizerOptions; description: string }
  | { kind: 'offline'; message: string };

/**
 * Reads `CTXKIT_LLM_BASE_URL` (or `OPENAI_BASE_URL`), `CTXKIT_LLM_API_KEY` (or `OPENAI_API_KEY`), `CTXKIT_LLM_MODEL`,
 * `CTXKIT_SUMMARY_MODEL`, `CTXKIT_LLM_TIMEOUT_MS`, `CTXKIT_LLM_MAX_RETRIES`, `CTXKIT_LLM_STREAM`,
 * `CTXKIT_LLM_MAX_TOKENS_PARAM`.
 * The `OPENAI_*` names are the openai SDK's own; the `CTXKIT_LLM_*` name wins when both are set.
 * Pure. A bad value throws `CtxError('invalid_config')` naming the variable. No key and no base URL
 * (or the OpenAI one) → `offline` with a plain message; a local base URL (Ollama, vLLM) needs no key.
 */
export function summarizerConfigFromEnv(env: Readonly<Record<string, unknown>>): SummarizerEnvConfig {
  const strings: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape))
    if (typeof env[key] === 'string') strings[key] = env[key] as string;
  const e = parseConfig(envSchema, strings, []);
  const apiKey = e.CTXKIT_LLM_API_KEY ?? e.OPENAI_API_KEY;
  const baseURL = e.CTXKIT_LLM_BASE_URL ?? e.OPENAI_BASE_URL;
  const baseURLVar = e.CTXKIT_LLM_BASE_URL !== undefined ? 'CTXKIT_LLM_BASE_URL' : 'OPENAI_BASE_URL';
  const isOpenAI = baseURL === undefined || new URL(baseURL).hostname === 'api.openai.com';
  if (apiKey === undefined && isOpenAI) return { kind: 'offline', message: NO_KEY_MESSAGE };
  const model = e.CTXKIT_LLM_MODEL ?? (isOpenAI ? DEFAULT_OPENAI_MODEL : undefined);
  if (model === undefined)
    throw new CtxError('invalid_config', `required when ${baseURLVar} is set`, {
      path: 'CTXKIT_LLM_MODEL',
    });
  const options: OpenAISummarizerOptions = { model };
  if (baseURL !== undefined) options.baseURL = baseURL;
  if (apiKey !== undefined) options.apiKey = apiKey;
  if (e.CTXKIT_SUMMARY_MODEL !== undefined) options.summarizationModel = e.CTXKIT_SUMMARY_MODEL;
  if (e.CTXKIT_LLM_TIMEOUT_MS !== undefined) options.timeoutMs = e.CTXKIT_LLM_TIMEOUT_MS;
  if (e.CTXKIT_LLM_MAX_RETRIES !== undefined) options.maxRetries = e.CTXKIT_LLM_MAX_RETRIES;
  if (e.CTXKIT_LLM_STREAM !== undefined) options.stream = e.CTXKIT_LLM_STREAM;
  if (e.CTXKIT_LLM_MAX_TOKENS_PARAM !== undefined) options.maxTokensParam = e.CTXKIT_LLM_MAX_TOKENS_PARAM;
  const models = options.summarizationModel ? `${model} (automatic: ${options.summarizationModel})` : model;
  return {
    kind: 'llm',
    options,
    description: `summaries by ${models} at ${baseURL ?? OPENAI_SUMMARIZER_DEFAULTS.baseURL}`,
  };
}

export interface SummarizerFromEnvOptions {
  /** Used when no provider is configured, and (with `wrap`) when the provider fails. */
  fallback: Summarizer;
  /** Wrap the LLM summarizer in `withFallback(llm, fallback)`. @default true */
  wrap?: boolean;
  /** Extra options for the LLM summarizer (fetch, clientFactory, sleep…). */
  overrides?: Partial<OpenAISummarizerOptions>;
}

export interface SummarizerFromEnv {
  summarizer: Summarizer;
  /** Whether an LLM provider is configured. */
  llm: boolean;
  /** One line for the user: which provider, or why the deterministic summarizer is used. */
  message: string;
}

/** The summarizer `ctxcheck compact --llm` (and the Worker) use. Throws only on invalid configuration. */
export function summarizerFromEnv(
  env: Readonly<Record<string, unknown>>,
  options: SummarizerFromEnvOptions,
): SummarizerFromEnv {
  const config = summarizerConfigFromEnv(env);
  if (config.kind === 'offline') return { summarizer: options.fallback, llm: false, message: config.message };
  const llm = createOpenAISummarizer({ ...config.options, ...options.overrides });
  const wrap = options.wrap ?? true;
  return {
    summarizer: wrap ? withFallback(llm, options.fallback) : llm,
    llm: true,
    message: wrap ? `${config.description}; fallback ${options.fallback.name}` : config.description,
  };
}
