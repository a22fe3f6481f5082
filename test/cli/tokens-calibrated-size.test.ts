import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { rareBigrams } from '../../src/cli/tokens/calibration.ts';
import { loadTokenCorpus } from '../../src/cli/tokens/corpus.ts';
import { packBits, RARE_BIGRAMS } from '../../src/core/index.ts';

const root = resolve(import.meta.dirname, '../..');
const corpus = resolve(root, '../shared/data/tokens');

/** Gzipped size of a minified ESM bundle of `entry` (imports resolved from the repo root). */
async function gzippedBundle(entry: string): Promise<number> {
  const out = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  });
  return gzipSync(out.outputFiles[0]!.contents, { level: 9 }).length;
}

const calibrated = './src/core/tokens/calibrated/index.ts';

describe('calibrated estimator bundle', () => {
  it('stays within its size budget when bundled minified and gzipped', async () => {
    // The estimator: features, packed weights of all 7 presets, the counter (with its config checks).
    const counter = await gzippedBundle(`export { createCalibratedCounter } from '${calibrated}';`);
    // Goal (#15): under 3 KB — read strictly, under 3,000 B; measured 2,992 B. Counting multi-part
    // results and pass-through parts as what they are (#26 item 3) took it to 3,259 B: over that goal.
    expect(counter).toBeLessThan(3300);
    // With the session calibrator (self-correction) too, measured 3282 B before #26: a guard, not the goal.
    const withSession = await gzippedBundle(
      `export { createCalibratedCounter, createSessionCalibrator } from '${calibrated}';`,
    );
    expect(withSession).toBeLessThanOrEqual(3600); // 3,548 B after #26 item 3
  });
});

describe('RARE_BIGRAMS', () => {
  it.skipIf(!existsSync(corpus))('matches the pairs derived from the corpus English prose', async () => {
    const files = await loadTokenCorpus(corpus);
    const english = files.filter((f) => f.category === 'en-prose').map((f) => f.text);
    expect(packBits(rareBigrams(english))).toBe(RARE_BIGRAMS);
  });
});
