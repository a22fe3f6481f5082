/**
 * The embedder port, cosine similarity, and a deterministic hashing embedder for tests and
 * offline fallbacks (feature hashing of word unigrams and bigrams; no model, no network).
 */
import { queryTokens } from './fts-query.ts';

export interface Embedder {
  /** Stored beside every vector; vectors of another model are never compared. */
  readonly modelId: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[] | number[][]>;
}

/** Cosine similarity; 0 when the lengths differ or a vector is zero. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Feature-hashing embedder: each unigram (and bigram, at half weight) adds ±1 to one of
 * `dimensions` buckets; the vector is L2-normalised. Deterministic across runtimes.
 * @param dimensions @default 256
 */
export function hashingEmbedder(dimensions = 256): Embedder {
  return {
    modelId: `hashing-${dimensions}`,
    dimensions,
    async embed(texts) {
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        const tokens = queryTokens(text);
        const add = (feature: string, weight: number) => {
          const h = fnv1a(feature);
          v[h % dimensions]! += h & 0x80000000 ? -weight : weight;
        };
        for (const [i, t] of tokens.entries()) {
          add(t, 1);
          if (i > 0) add(`${tokens[i - 1]} ${t}`, 0.5);
        }
        let norm = 0;
        for (const x of v) norm += x * x;
        norm = Math.sqrt(norm);
        if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
        return v;
      });
    },
  };
}

/** Embeds and converts to plain arrays (what the stores keep). */
export async function embedAll(embedder: Embedder, texts: readonly string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const out = await embedder.embed(texts);
  return out.map((v) => Array.from(v));
}
