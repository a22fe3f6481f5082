/**
 * A persistent embedding cache for the CLI and benchmarks: one append-only file per model under a
 * directory (`.ctxkit-cache/embeddings/` by default, git-ignored), each line
 * `<sha256 of the text>\t<base64 float32 vector>`. Keyed by model id + text hash, so a rerun embeds
 * only texts it has not seen.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../../core/index.ts';
import { decodeVector, encodeVector } from '../../db/sql/vector-codec.ts';

export interface CachingEmbedder extends Embedder {
  /** Texts answered from the cache / embedded by the model, so far. */
  readonly stats: { hits: number; misses: number };
}

const hashText = (text: string) => createHash('sha256').update(text).digest('hex');

/** Wraps `inner` with an in-memory cache, persisted under `dir` when given. */
export function cachingEmbedder(inner: Embedder, dir?: string): CachingEmbedder {
  const memory = new Map<string, number[]>();
  let file: string | undefined;
  if (dir !== undefined) {
    const folder = join(dir, 'embeddings');
    mkdirSync(folder, { recursive: true });
    file = join(folder, `${inner.modelId.replace(/[^A-Za-z0-9._-]+/g, '_')}.tsv`);
    if (existsSync(file))
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const tab = line.indexOf('\t');
        if (tab !== 64) continue;
        const vector = decodeVector(line.slice(tab + 1));
        if (vector.length === inner.dimensions) memory.set(line.slice(0, tab), vector);
      }
  }
  const stats = { hits: 0, misses: 0 };
  return {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    stats,
    async embed(texts) {
      const keys = texts.map(hashText);
      const missing: string[] = [];
      const missingKeys: string[] = [];
      const pending = new Set<string>();
      for (const [i, k] of keys.entries())
        if (!memory.has(k) && !pending.has(k)) {
          pending.add(k);
          missing.push(texts[i]!);
          missingKeys.push(k);
        }
      stats.misses += missing.length;
      stats.hits += texts.length - missing.length;
      if (missing.length > 0) {
        const vectors = await inner.embed(missing);
        let lines = '';
        for (const [i, k] of missingKeys.entries()) {
          const v = Array.from(vectors[i]!);
          memory.set(k, v);
          lines += `${k}\t${encodeVector(v)}\n`;
        }
        if (file !== undefined) appendFileSync(file, lines);
      }
      return keys.map((k) => memory.get(k)!);
    },
  };
}
