/**
 * The parts of the `openai` SDK that the public types of `ctxkit/providers` name, written out
 * structurally. `openai` is an optional peer: were these the SDK's own types, every project importing
 * `ctxkit/providers` without `openai` installed would fail to type-check ctxkit's declarations
 * (`skipLibCheck: false`). The SDK's classes fit them as they are — `clientFactory: (o) => new OpenAI(o)`
 * and `client: new OpenAI()` type-check against openai 6 and 7 (the package test compiles both).
 */

/** A `fetch` as the SDK takes it. */
export type OpenAIFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * What ctxkit builds the SDK client with, and hands to `clientFactory`. `fetch` never follows a redirect
 * (`redirect: 'manual'`): a 3xx would carry the API key and the conversation to another host.
 */
export interface OpenAIClientOptions {
  baseURL: string;
  apiKey: string;
  maxRetries: number;
  timeout: number;
  /** Explicit nulls, so that the SDK does not fill them from `OPENAI_*` environment variables. */
  organization: null;
  project: null;
  adminAPIKey: null;
  webhookSecret: null;
  logLevel: 'warn';
  fetch: OpenAIFetch;
}

/** One Chat Completions request, as ctxkit sends it (the SDK's `ChatCompletionCreateParams` fits). */
export interface OpenAIChatRequest {
  model: string;
  messages: ReadonlyArray<{ role: string; content?: unknown }>;
  stream?: boolean | null;
}

/** What the summarizer calls on a client: `chat.completions.create` (an `OpenAI` client fits). */
export interface OpenAIChatClient {
  chat: {
    completions: {
      create(body: OpenAIChatRequest, options?: { signal?: AbortSignal | null }): PromiseLike<unknown>;
    };
  };
}

/** What the embedder calls on a client: `embeddings.create` (an `OpenAI` client fits). */
export interface OpenAIEmbeddingsClient {
  embeddings: {
    create(body: {
      model: string;
      input: string[];
      dimensions?: number;
    }): PromiseLike<{ data: ReadonlyArray<{ index: number; embedding: number[] }> }>;
  };
}

/** An error class of the SDK, as ctxkit tells them apart. */
type ErrorClass<T = object> = abstract new (...args: never[]) => Error & T;

/** The `openai` module, as far as ctxkit uses it (`loadOpenAI`); the SDK's module namespace fits. */
export interface OpenAIModule {
  OpenAI: new (options: OpenAIClientOptions) => OpenAIChatClient & OpenAIEmbeddingsClient;
  APIError: ErrorClass<{ readonly status: number | undefined; readonly headers: Headers | undefined }>;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}
