/**
 * The Worker's embedder: Workers AI (`[ai] binding = "AI"`) when bound, else none — memory search is
 * then keyword-only. An embedding failure never fails a write: the text is stored without a vector
 * (and stays findable by keyword).
 */
import { CtxError, type Embedder } from '../core/index.ts';
import type { Env } from './env.ts';

/** The part of the Workers AI binding used here. */
export interface AiBinding {
  run(model: string, input: { text: string[] }): Promise<unknown>;
}

/** @default '@cf/baai/bge-small-en-v1.5' (384 dimensions) */
export const DEFAULT_EMBEDDING_MODEL = '@cf/baai/bge-small-en-v1.5';

const DIMENSIONS: Record<string, number> = {
  '@cf/baai/bge-small-en-v1.5': 384,
  '@cf/baai/bge-base-en-v1.5': 768,
  '@cf/baai/bge-large-en-v1.5': 1024,
  '@cf/baai/bge-m3': 1024,
};

/** Texts per call (Workers AI accepts up to 100). */
const BATCH = 50;

/** Longest wait for one call of the binding (ms): a stalled model never holds a write or a search. */
export const EMBEDDING_TIMEOUT_MS = 10_000;

/** `promise`, or a rejection naming the model once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, model: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Workers AI ${model} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function createWorkersAiEmbedder(
  ai: AiBinding,
  model = DEFAULT_EMBEDDING_MODEL,
  timeoutMs = EMBEDDING_TIMEOUT_MS,
): Embedder {
  const dimensions = DIMENSIONS[model];
  if (dimensions === undefined)
    throw new CtxError(
      'invalid_config',
      `unknown embedding model (one of ${Object.keys(DIMENSIONS).join(', ')})`,
      {
        path: 'EMBEDDING_MODEL',
      },
    );
  return {
    modelId: `workers-ai:${model}`,
    dimensions,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const batch = texts.slice(i, i + BATCH);
        const answer = (await within(ai.run(model, { text: [...batch] }), timeoutMs, model)) as {
          data?: unknown;
        };
        const data = answer?.data;
        if (
          !Array.isArray(data) ||
          data.length !== batch.length ||
          !data.every(
            (v) => Array.isArray(v) && v.length === dimensions && v.every((x) => typeof x === 'number'),
          )
        )
          throw new Error(
            `Workers AI ${model} answered without ${batch.length} vectors of ${dimensions} numbers`,
          );
        out.push(...(data as number[][]));
      }
      return out;
    },
  };
}

/**
 * Runs a write with the embedder, and again without it when that fails: an unreachable model never
 * loses a memory, it only leaves it without a vector (still found by keyword).
 */
export async function withVectors<T>(
  embedder: Embedder | undefined,
  write: (e: Embedder | undefined) => Promise<T>,
): Promise<T> {
  if (!embedder) return write(undefined);
  try {
    return await write(embedder);
  } catch (error) {
    console.warn(`ctxkit: embedding with ${embedder.modelId} failed; stored without vectors`, error);
    return write(undefined);
  }
}

export function workerEmbedder(env: Env): Embedder | undefined {
  const ai = env.AI as AiBinding | undefined;
  if (!ai || typeof ai.run !== 'function') return undefined;
  const model =
    typeof env.EMBEDDING_MODEL === 'string' && env.EMBEDDING_MODEL !== '' ? env.EMBEDDING_MODEL : undefined;
  return createWorkersAiEmbedder(ai, model);
}
