/**
 * One Chat Completions call over any OpenAI-compatible endpoint, through the `openai` SDK: the
 * connection (made on the first call; `openai` is an optional peer, `loadOpenAI`), the per-attempt
 * time limit, retries (./retry.ts), and faults as `CtxError('provider_error')` naming the model and
 * the endpoint. `createOpenAISummarizer` asks it for summaries; anything else that needs one plain
 * completion (the memory bench's fact extraction, `ctxcheck bench memory --facts-url`) asks it too.
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import {
  CtxError,
  createChars4Counter,
  type PromptPlan,
  stripThinking,
  type ToolDefinition,
} from '../core/index.ts';
import { noRedirects, redirectRefused } from './no-redirects.ts';
import { loadSdk, type Sdk } from './openai-loader.ts';
import { type OpenAISummarizerOptions, type ResolvedOptions, resolveOptions } from './options.ts';
import { withRetries } from './retry.ts';
import type { OpenAIChatClient, OpenAIClientOptions } from './sdk-types.ts';

interface Connection {
  sdk: Sdk;
  client: OpenAIChatClient;
}

export interface ChatAnswer {
  text: string;
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function usageOf(raw: unknown): ChatAnswer['usage'] {
  if (!isRecord(raw)) return undefined;
  const input = raw.prompt_tokens;
  const output = raw.completion_tokens;
  if (typeof input !== 'number' && typeof output !== 'number') return undefined;
  return {
    inputTokens: typeof input === 'number' ? input : 0,
    outputTokens: typeof output === 'number' ? output : 0,
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function contentText(message: ChatCompletionMessageParam): string {
  const c = message.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : '')).join('');
}

class Call {
  readonly controller = new AbortController();
  timedOut = false;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly outer: AbortSignal | undefined;
  private readonly onOuter = () => this.controller.abort(this.outer?.reason);

  constructor(timeoutMs: number, outer: AbortSignal | undefined) {
    this.outer = outer;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    if (outer?.aborted) this.onOuter();
    else outer?.addEventListener('abort', this.onOuter, { once: true });
  }

  done(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuter);
  }
}

/** What one call sends: the messages (system first), and optionally the temperature and output cap. */
export type ChatPlan = Pick<PromptPlan, 'messages' | 'temperature' | 'maxTokens'> & {
  /**
   * Tool schemas in Chat Completions form, sent with tool choice `none`: the agent's own, so that a
   * summary asked on its last send starts with the prefix the provider cached.
   */
  tools?: readonly ToolDefinition[];
  /** OpenAI's `prompt_cache_key`: routes the call to the cache the agent's calls with that key filled. */
  promptCacheKey?: string;
};

export interface OpenAIChat {
  /** The options, validated, with their defaults. */
  readonly options: ResolvedOptions;
  /** One call of `plan` to `model` with retries; the answer text (thinking removed) is never empty. */
  complete(plan: ChatPlan, model: string, signal?: AbortSignal): Promise<ChatAnswer>;
}

/**
 * A Chat Completions caller with `options` (validated here: a bad field is `CtxError('invalid_config')`);
 * `feature` is what the error names when the `openai` package is missing.
 */
export function createOpenAIChat(options: OpenAISummarizerOptions, feature = 'createOpenAIChat'): OpenAIChat {
  const o: ResolvedOptions = resolveOptions(options);
  const counter = o.counter ?? createChars4Counter({ unit: 'chars' });
  const clientOptions: OpenAIClientOptions = {
    baseURL: o.baseURL,
    apiKey: o.apiKey,
    maxRetries: 0, // ./retry.ts retries, with an injectable sleep
    timeout: o.timeoutMs,
    // Explicit values, so that the SDK does not fill them from OPENAI_* environment variables
    // (configuration comes only from our options; only OPENAI_CUSTOM_HEADERS is still read by it).
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: 'warn',
    // Never follows a redirect (./no-redirects.ts), your own `fetch` included.
    fetch: noRedirects(o.fetch),
  };

  // The SDK and the client, made on the first call (`openai` is an optional peer).
  let connection: Promise<Connection> | undefined;
  function connect(): Promise<Connection> {
    connection ??= loadSdk(feature).then(
      (sdk) => ({
        sdk,
        client: o.clientFactory ? o.clientFactory(clientOptions) : new sdk.OpenAI(clientOptions),
      }),
      (error: unknown) => {
        connection = undefined;
        throw error;
      },
    );
    return connection;
  }

  async function once(
    { sdk, client }: Connection,
    body: ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal | undefined,
  ): Promise<ChatAnswer> {
    const call = new Call(o.timeoutMs, signal);
    try {
      if (!o.stream) {
        const completion: unknown = await client.chat.completions.create(body, {
          signal: call.controller.signal,
        });
        if (!isRecord(completion) || !Array.isArray(completion.choices))
          throw new CtxError('provider_error', `malformed answer: no "choices" in the response body`);
        const first: unknown = completion.choices[0];
        if (!isRecord(first) || !isRecord(first.message))
          throw new CtxError('provider_error', 'malformed answer: no choices[0].message');
        const content = first.message.content;
        if (content !== null && content !== undefined && typeof content !== 'string')
          throw new CtxError(
            'provider_error',
            'malformed answer: choices[0].message.content is not a string',
          );
        const answer: ChatAnswer = { text: content ?? '' };
        if (typeof completion.model === 'string') answer.model = completion.model;
        const usage = usageOf(completion.usage);
        if (usage) answer.usage = usage;
        return answer;
      }
      const streamed: ChatCompletionCreateParamsStreaming = { ...body, stream: true };
      if (o.streamUsage) streamed.stream_options = { include_usage: true };
      const stream = await client.chat.completions.create(streamed, { signal: call.controller.signal });
      if (!isAsyncIterable(stream)) throw new CtxError('provider_error', 'malformed answer: not a stream');
      const answer: ChatAnswer = { text: '' };
      for await (const chunk of stream) {
        if (!isRecord(chunk)) continue;
        const first: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
        const delta = isRecord(first) && isRecord(first.delta) ? first.delta.content : undefined;
        if (typeof delta === 'string') answer.text += delta;
        if (typeof chunk.model === 'string' && chunk.model !== '') answer.model = chunk.model;
        const usage = usageOf(chunk.usage);
        if (usage) answer.usage = usage;
      }
      // The SDK ends a stream quietly when its signal aborts: a partial answer is no answer.
      if (call.controller.signal.aborted) throw new sdk.APIUserAbortError();
      return answer;
    } catch (error) {
      if (call.timedOut)
        throw new CtxError('provider_error', `no answer within ${o.timeoutMs} ms (timeout)`, {
          cause: error,
        });
      throw error;
    } finally {
      call.done();
    }
  }

  function fault(sdk: Sdk, error: unknown, model: string, retries: number): CtxError {
    const where = `summarizer ${model} at ${o.baseURL}`;
    const tries = retries > 0 ? ` (after ${retries} retries)` : '';
    const redirect = redirectRefused(sdk, error, 'baseURL (CTXKIT_LLM_BASE_URL)');
    let what: string;
    if (error instanceof CtxError) what = error.message;
    else if (redirect !== undefined) what = redirect;
    else if (error instanceof sdk.APIUserAbortError) what = 'aborted by the caller';
    else if (error instanceof sdk.APIConnectionTimeoutError)
      what = `no answer within ${o.timeoutMs} ms (timeout)`;
    else if (error instanceof sdk.APIError && error.status !== undefined)
      what = `HTTP ${error.status}: ${error.message}`;
    else if (error instanceof sdk.APIConnectionError) {
      // The SDK's message is generic ("Connection error."); its cause says what failed.
      const cause = (error as { cause?: unknown }).cause;
      const why = cause instanceof Error ? ` (${cause.message.slice(0, 200)})` : '';
      what = `connection failed: ${error.message}${why}`;
    } else if (error instanceof SyntaxError) what = `malformed answer: invalid JSON (${error.message})`;
    else what = `malformed answer: ${error instanceof Error ? error.message : String(error)}`;
    return new CtxError('provider_error', `${where}: ${what}${tries}`, { cause: error });
  }

  /** One Chat Completions call with retries; the answer text (thinking removed) is never empty. */
  async function complete(
    plan: ChatPlan,
    model: string,
    signal: AbortSignal | undefined,
  ): Promise<ChatAnswer> {
    const connection = await connect();
    const messages = plan.messages as unknown as ChatCompletionMessageParam[];
    const body: ChatCompletionCreateParamsNonStreaming = { model, messages };
    if (plan.temperature !== undefined) body.temperature = plan.temperature;
    if (plan.maxTokens !== undefined) body[o.maxTokensParam] = plan.maxTokens;
    if (plan.tools !== undefined && plan.tools.length > 0) {
      body.tools = plan.tools as NonNullable<ChatCompletionCreateParamsNonStreaming['tools']>;
      body.tool_choice = 'none';
    }
    if (plan.promptCacheKey !== undefined) body.prompt_cache_key = plan.promptCacheKey;
    let retries = 0;
    let answer: ChatAnswer;
    try {
      const retryOptions: Parameters<typeof withRetries>[1] = {
        maxRetries: o.maxRetries,
        initialDelayMs: o.initialRetryDelayMs,
        maxDelayMs: o.maxRetryDelayMs,
        sleep: o.sleep,
        random: o.random,
        now: o.now,
        onRetry: (info) => {
          retries = info.attempt;
          o.onRetry?.(info);
        },
      };
      if (signal) retryOptions.signal = signal;
      answer = (await withRetries(() => once(connection, body, signal), retryOptions)).value;
    } catch (error) {
      throw fault(connection.sdk, error, model, retries);
    }
    const text = stripThinking(answer.text);
    if (text.trim() === '')
      throw fault(
        connection.sdk,
        new CtxError('provider_error', 'empty answer (no content)'),
        model,
        retries,
      );
    return {
      ...answer,
      text,
      usage: answer.usage ?? {
        inputTokens: messages.reduce((n, m) => n + 4 + counter.countText(contentText(m)), 0),
        outputTokens: counter.countText(answer.text),
      },
    };
  }

  return { options: o, complete };
}
