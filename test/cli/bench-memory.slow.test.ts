/**
 * The slow half of bench-memory.test.ts (`npm run test:slow`): `ctxcheck bench memory` as
 * docs/memory.md runs it, every mode over the whole open half of LoCoMo with USE-lite (~70 s with a
 * warm embedding cache, more on a busy machine). `npm test` keeps the first conversation with the
 * default, keyword-only and BM25 modes as its representative (bench-memory.test.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBenchMemory } from '../../src/cli/commands/bench-memory.ts';
import { bufferIo } from '../../src/cli/io.ts';
import { USE_LITE_MODEL_ID } from '../../src/cli/memory/use-lite-embedder.ts';

const REAL = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'locomo', 'locomo-open.json');

describe('runBenchMemory on the LoCoMo open half', () => {
  it.skipIf(!existsSync(REAL))(
    'reaches R@10 ≥ 78 by default and ranks default > turns, default ≥ keyword-only > plain BM25 and default > cowagent at 10',
    async () => {
      const io = bufferIo();
      const result = await runBenchMemory(
        {
          locomo: REAL,
          embedder: 'use-lite',
          cacheDir: resolve(import.meta.dirname, '..', '..', '.ctxkit-cache'),
          latencySearches: 20,
        },
        io,
      );
      const at10 = (mode: string) => result.overall.recall[mode]!.at10;
      expect(result.embedder).toBe(USE_LITE_MODEL_ID);
      expect(result.overall.questions).toBe(760);
      expect(at10('default')).toBeGreaterThanOrEqual(0.78);
      expect(at10('default')).toBeGreaterThan(at10('turns'));
      expect(at10('default')).toBeGreaterThanOrEqual(at10('keyword'));
      expect(at10('keyword')).toBeGreaterThan(at10('bm25'));
      expect(at10('default')).toBeGreaterThan(at10('cowagent'));
      expect(io.stdout()).toContain('default search, 20 searches over 2760 turns');
    },
    900_000,
  );
});
