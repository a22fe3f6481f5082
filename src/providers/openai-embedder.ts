/** OpenAI (or any OpenAI-compatible endpoint) embeddings through the `openai` SDK. */
import OpenAI from 'openai';
import type { Embedder } from '../core/index.ts';

export interface OpenAIEmbedderOptions {
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
  const client =
    options.client ??
    new OpenAI({
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    });
  return {
    modelId: `openai:${model}@${dimensions}`,
    dimensions,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const res = await client.embeddings.create({
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
