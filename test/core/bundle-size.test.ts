/**
 * The issue #15 size goals, checked from `src/` on every run (`npm run bench:package` measures the same
 * entries from the installed tarball for the docs). One classic zod import in a file reachable from
 * `createPipeline` adds ~19 KB gzip here (decision 0008).
 */
import { describe, expect, it } from 'vitest';
import { bundleGzip, PIPELINE_ADAPTERS_ENTRY, ROOT } from '../support/package-consumer.ts';

describe('bundle size', () => {
  it('keeps createPipeline + every adapter within 78 KB gzip when bundled from src', async () => {
    const { gzip } = await bundleGzip(ROOT, PIPELINE_ADAPTERS_ENTRY.replace('SOURCE', './src/core/index.ts'));
    // 62 KB until #25: the send fingerprint (content digests, sent.ts) added ~0.2 KB. 63 KB until #26
    // item 3: opaque pass-through parts in every adapter, multi-part results, approvals and the reasoning
    // metadata read from `extra` brought it to 65,250 B. 64 KB until #28's standing instructions (the
    // default preset's constraint classifier and pinned section), Anthropic pass-through blocks and the
    // budget's smallest-window check: 67,017 B. 66 KB until #28's compaction prepared ahead
    // (pipeline.ahead, its scheduler and the fingerprint check): 68,894 B. 68 KB until the multi-part
    // tool outputs in every adapter (69,583 B) and the fingerprint's alignment over ctxkit's own
    // reductions and digests (70,302 B): the guard was then docs/packaging.md's goal itself, ≤ 70 KB.
    // 70 KB until the offline summary carried the work (files changed, errors and whether they were
    // fixed, commits and closed tasks, later requests, no filler), model-written summaries were told
    // from a user's words, and the journal's recovery text fitted its caller: 73,524 B. The goal is now
    // 75 KB; the seed presets' stages (cowagent, kosmokrator, tiancai: ~17 KB minified) are in every
    // bundle because `createPipeline` takes a preset by name. 75 KB until #41's prompt cache (the cost
    // model, the rewrite gate, `run.cache`, Anthropic breakpoints, arrival truncation in the pre-flight,
    // ~3.6 KB gzip): 77,110 B. The recall tools' refs in the stubs (the tools themselves come with
    // `createRecall`, outside createPipeline): 77,925 B. The paid-summary cap, the cached-prefix prompt
    // and the name index on typed arrays: 79,539 B (333 B under the guard). 78 KB until the prompt-cache
    // rules by model family (the table, ~170 B, and `model` checked and carried, ~185 B): 79,905 B. The
    // option keys of createPipeline, createContext and prepare checked, and the dialect: 80,211 B; the to*
    // adapters' input checked: 80,293 B. 78.5 KB until the
    // default preset's counter took o200k's weights alone, not the table of all seven calibrated presets
    // (`scripts/bundle-weights.ts` shows where the rest is): 79,801 B. The guard is 78 KB, just above
    // that; the goal (docs/packaging.md, ≤ 75 KB) is still missed, and a change that grows the bundle
    // further fails here.
    expect(gzip).toBeLessThanOrEqual(78 * 1024);
  });

  it('keeps createCalibratedCounter from the tokens entry within 3.5 KB gzip', async () => {
    const { gzip } = await bundleGzip(
      ROOT,
      "export { createCalibratedCounter } from './src/core/tokens/index.ts';",
    );
    expect(gzip).toBeLessThanOrEqual(3.5 * 1024);
  });
});
