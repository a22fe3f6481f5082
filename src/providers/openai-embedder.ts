/**
 * OpenAI (or any OpenAI-compatible endpoint) embeddings through the `openai` SDK. The SDK is imported
 * on the first `embed` (`loadOpenAI`): without `openai` installed that call fails with
 * `CtxError('unsupported')` naming the package; a `client` passed in is used as it is.
 */
import type { OpenAI } from 'openai';
import type { Embedder } from '../core/index.ts';
import { loadOpenAI } from './openai-sdk.ts';

export interface OpenAIEmbedderOptions {
  /** A client of your own (then the SDK is not imported by ctxkit). */
  client?: OpenAI;
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
  let client: OpenAI | undefined = options.client;
  async function connect(): Promise<OpenAI> {
    if (client) return client;
    const sdk = await loadOpenAI('openAIEmbedder');
    client ??= new sdk.OpenAI({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
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
        const res = await api.embeddings.create({
          model,
          input: texts.slice(i, i + batchSize),
          dimensions,
        });
        for (const d of [...res.data].sort((a, b) => a.index - b.index)) out.push(d.embedding);
      }
      return out;
    },
  };
}
