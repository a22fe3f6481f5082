/**
 * OpenAI (or any OpenAI-compatible endpoint) embeddings through the `openai` SDK. The SDK is imported
 * on the first `embed` (`loadSdk`): without `openai` installed that call fails with
 * `CtxError('unsupported')` naming the package; a `client` passed in is used as it is. The client
 * ctxkit builds never follows a redirect (./no-redirects.ts): a 3xx is a `provider_error`.
 */
import { CtxError, type Embedder } from '../core/index.ts';
import { noRedirects, redirectRefused } from './no-redirects.ts';
import { loadSdk, type Sdk } from './openai-loader.ts';
import type { OpenAIEmbeddingsClient } from './sdk-types.ts';

export interface OpenAIEmbedderOptions {
  /** A client of your own (an `OpenAI`, or anything with `embeddings.create`); then ctxkit imports no SDK. */
  client?: OpenAIEmbeddingsClient;
  apiKey?: string;
  baseURL?: string;
  /** @default 'text-embedding-3-small' */
  model?: string;
  /** @default 1536 */
  dimensions?: number;
  /** Inputs per request. @default 256 */
  batchSize?: number;
}

export function openAIEmbedder(options: OpenAIEmbedderOptions = {}): Embedder {
  const model = options.model ?? 'text-embedding-3-small';
  const dimensions = options.dimensions ?? 1536;
  const batchSize = options.batchSize ?? 256;
  let client: OpenAIEmbeddingsClient | undefined = options.client;
  let sdk: Sdk | undefined;
  async function connect(): Promise<OpenAIEmbeddingsClient> {
    if (client) return client;
    sdk = await loadSdk('openAIEmbedder');
    client ??= new sdk.OpenAI({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
      fetch: noRedirects(),
    });
    return client;
  }
  return {
    modelId: `openai:${model}@${dimensions}`,
    dimensions,
    async embed(texts) {
      const api = await connect();
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        let res: Awaited<ReturnType<OpenAIEmbeddingsClient['embeddings']['create']>>;
        try {
          res = await api.embeddings.create({ model, input: texts.slice(i, i + batchSize), dimensions });
        } catch (error) {
          const redirect = sdk && redirectRefused(sdk, error, 'baseURL');
          if (!redirect) throw error;
          const where = `embedder ${model} at ${options.baseURL ?? 'the SDK default base URL'}`;
          throw new CtxError('provider_error', `${where}: ${redirect}`, { cause: error });
        }
        for (const d of [...res.data].sort((a, b) => a.index - b.index)) out.push(d.embedding);
      }
      return out;
    },
  };
}
