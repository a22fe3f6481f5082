/**
 * `ctxcheck bench memory --facts-url URL --facts-model NAME`: the bench's fact extractor (model facts,
 * `factExtractorFrom`) over a model behind an OpenAI-compatible Chat Completions endpoint, through the
 * providers' own caller (`createOpenAIChat`, the one `createOpenAISummarizer` uses; the `openai`
 * package is loaded on first use). The key comes from `CTXKIT_FACTS_API_KEY`, never a flag (a flag
 * lands in shell history and process lists). Each call is bounded: `--facts-timeout-ms` per attempt,
 * the answer's bytes (`MAX_FACTS_ANSWER_BYTES`, read through a bounded `fetch`) and its tokens (the
 * extractor's `maxOutputTokens`).
 */
import { type FactExtractor, factExtractorFrom } from '../../core/index.ts';
import type { ChatPlan } from '../../providers/openai-chat.ts';
import { CliError } from '../io.ts';

export const FACTS_KEY_ENV = 'CTXKIT_FACTS_API_KEY';
/** @default 60,000 ms per attempt (1–600,000) */
export const DEFAULT_FACTS_TIMEOUT_MS = 60_000;
/** @default 1 MiB: an extraction answer (at most 40 facts) is a few kilobytes. */
export const MAX_FACTS_ANSWER_BYTES = 1 << 20;

export interface FactsModelArgs {
  url?: string | undefined;
  model?: string | undefined;
  timeoutMs?: number | undefined;
}

export interface FactsModel {
  baseURL: string;
  model: string;
  timeoutMs: number;
  apiKey?: string;
}

/** The options checked: undefined when neither is given; a `CliError` (exit 2) naming the flag at fault. */
export function parseFactsModel(
  args: FactsModelArgs,
  env: Record<string, string | undefined>,
): FactsModel | undefined {
  const { url, model, timeoutMs } = args;
  if (url === undefined && model === undefined) {
    if (timeoutMs !== undefined)
      throw new CliError('--facts-timeout-ms: needs --facts-url and --facts-model');
    return undefined;
  }
  if (url === undefined || url.trim() === '')
    throw new CliError(
      '--facts-url: missing (the Chat Completions base URL, e.g. http://127.0.0.1:11434/v1)',
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--facts-url: not a URL: ${JSON.stringify(url.slice(0, 100))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CliError(`--facts-url: must be http(s), got ${parsed.protocol.slice(0, 20)}`);
  if (parsed.username || parsed.password)
    throw new CliError(`--facts-url: must not hold credentials (the key goes in ${FACTS_KEY_ENV})`);
  if (model === undefined || model.trim() === '')
    throw new CliError('--facts-model: missing (the model that extracts the facts)');
  if (model.length > 200) throw new CliError('--facts-model: longer than 200 characters');
  const timeout = timeoutMs ?? DEFAULT_FACTS_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600_000)
    throw new CliError(`--facts-timeout-ms: must be an integer from 1 to 600000, got ${timeoutMs}`);
  const key = env[FACTS_KEY_ENV];
  return {
    baseURL: parsed.href.replace(/\/$/, ''),
    model: model.trim(),
    timeoutMs: timeout,
    ...(key !== undefined && key !== '' ? { apiKey: key } : {}),
  };
}

/** `fetch` that fails a response whose body passes `maxBytes` (the whole body is read, within the bound). */
export function boundedFetch(maxBytes: number, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      size += r.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`the answer passed ${maxBytes} bytes`);
      }
      chunks.push(r.value);
    }
    const body = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      body.set(c, at);
      at += c.byteLength;
    }
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The extractor that asks `m`'s model for each session's facts (one call per session, bounded). */
export async function factsModelExtractor(m: FactsModel, inner?: typeof fetch): Promise<FactExtractor> {
  const { createOpenAIChat } = await import('../../providers/openai-chat.ts');
  const { loadOpenAI } = await import('../../providers/openai-sdk.ts');
  // The optional `openai` package, checked before the first conversation (not once per session).
  await loadOpenAI('--facts-url').catch((error: unknown) => {
    throw new CliError(error instanceof Error ? error.message.split('\n')[0]! : String(error));
  });
  const chat = createOpenAIChat(
    {
      baseURL: m.baseURL,
      model: m.model,
      timeoutMs: m.timeoutMs,
      maxRetries: 1,
      name: `facts ${m.model}`,
      fetch: boundedFetch(MAX_FACTS_ANSWER_BYTES, inner),
      ...(m.apiKey ? { apiKey: m.apiKey } : {}),
    },
    '--facts-url',
  );
  return factExtractorFrom(
    async (call) => {
      const plan: ChatPlan = {
        messages: [
          { role: 'system', content: call.system },
          { role: 'user', content: call.prompt },
        ],
        maxTokens: call.maxOutputTokens,
        temperature: 0,
      };
      return (await chat.complete(plan, m.model, call.signal)).text;
    },
    { name: `facts:${m.model}` },
  );
}
