/**
 * `default`: ctxkit's own pre-flight, the best of the four seeds (DESIGN.md, the pipeline table and
 * the prompt cache). What arrived since the last send is cut before it is first sent (the seeds'
 * arrival truncation, §4.1/§5.2/§1.5, head + tail and spilled); then dedup of superseded results
 * (002 §4.2), historical truncation (000 §1.4), pruning (002 §4.3) and archiving (003 §5.3), each
 * rewriting what the provider holds cached only when that is free or pays (`engine/cache-gate.ts`);
 * then ctxkit's compaction with a circuit breaker and a loop guard (002 §4.7–4.8), masking when the
 * guard escalates, and emergency trimming at the blocking level (002 §4.9); `/compact` is co-cli's
 * (001 §3.3). Budget: KosmoKrator's levels (002 §4.5) with buffers scaled to the window; counter: the
 * calibrated o200k estimate; the estimate anchors to a usage that answered its own send.
 */
import * as z from 'zod/mini';
import type { ContextBudget } from '../../../budget/budget.ts';
import { FILL_BOUNDS } from '../../../cache/cost-model.ts';
import { calibratedCounter } from '../../../tokens/calibrated/calibrated-counter.ts';
import { o200kWeights } from '../../../tokens/calibrated/weights.ts';
import { cacheGated } from '../../engine/cache-gate.ts';
import { createToolArchiving } from '../../stages/archiving.ts';
import { type CompactionOptions, compaction } from '../../stages/compaction.ts';
import { createEmergencyTrim } from '../../stages/emergency-trim.ts';
import { createOutputTruncation } from '../../stages/output-truncation.ts';
import { createPruning } from '../../stages/pruning.ts';
import type { Stage } from '../../types.ts';
import type { PresetDefinition } from '../definition.ts';
import { presetBudget, scaledBudget } from '../preset-budgets.ts';
import { dedup, historical, manualStage } from '../preset-stages.ts';

/**
 * Loop-guard masking: pruning with nothing protected (the last 2 user turns still are), freeing at
 * least `savings` tokens — or, when the old outputs cannot free that much, as much as they can (the
 * target is halved until pruning finds enough; 002's pruning does nothing below its minimum).
 */
function masking(savings: number): Stage {
  return {
    name: 'pruning',
    async run(messages, ctx) {
      let result = await createPruning({ mode: 'default', protectTokens: 0, minSavings: savings }).run(
        messages,
        ctx,
      );
      for (let s = Math.floor(savings / 2); result.messages === messages && s >= 1; s = Math.floor(s / 2))
        result = await createPruning({ mode: 'default', protectTokens: 0, minSavings: s }).run(messages, ctx);
      return result;
    },
  };
}

/** The same stage reported under another name (e.g. pruning used as the loop guard's masking). */
function renamed(name: string, stage: Stage): Stage {
  return {
    name,
    async run(messages, ctx) {
      const result = await stage.run(messages, ctx);
      const journal = result.journal.map((e) => (e.stage === stage.name ? { ...e, stage: name } : e));
      return { ...result, report: { ...result.report, stage: name }, journal };
    },
  };
}

/**
 * `default`'s arrival limit: one tool output may take a twentieth of usable input (at about 4 bytes
 * per token), and never more than Codex's 10 KiB — 5.9 KB at 32K, 10 KiB from 64K up; Claude Code's
 * shell cuts at 30,000 characters. An output is written once and then read on every send until the
 * next compaction, and brings that compaction closer: with 23.5 KB at 128K (the earlier cap, the seed
 * rules' 51,200 bytes) `npm run bench:cache` measured 1.006–1.06× the cost of append-then-compact on
 * the long sessions that read whole files, 0.90–0.97× with 10 KiB. A smaller share would cost less in
 * small windows too but loses recall there (`ctxcheck bench compaction --held-out`: Claude Code
 * sub-agents 95.1 % at a twentieth, 81.9 % at 3 %). What is cut is spilled to the blob store with a
 * notice on how to read it back.
 */
export const ARRIVAL_SHARE = 0.05;
/** The largest single output `default` lets in at any window: Codex's cut. */
export const ARRIVAL_MAX_BYTES = 10_240;

/**
 * The most a paid summarizer is asked to write in `default`: Claude Code's and Codex's summary size.
 * Its answer is billed at the output price (5× input for Claude Sonnet 4.5, 8× for GPT-5), while a
 * verbatim token of the kept part is only written to the cache; the reference index and the newest
 * steps fill the rest of the target (`ctxcheck bench cache`, "with the summarizer's call").
 */
export const PAID_SUMMARY_TOKENS = 2_000;

export function arrivalBytes(budget: ContextBudget): number {
  return Math.min(ARRIVAL_MAX_BYTES, Math.round(budget.usable * ARRIVAL_SHARE * 4));
}

export const defaultPreset: PresetDefinition = {
  sections: [
    'outputTruncation',
    'dedup',
    'historicalTruncation',
    'pruning',
    'archiving',
    'compaction',
    'emergencyTrim',
  ],
  options: { loopGuardRatio: z.optional(z.number().check(z.gt(0), z.lte(1))) },
  anchor: 'sent',
  budget: (_c, b) => ({
    budget: presetBudget('default', scaledBudget(b)),
    counter: calibratedCounter('o200k', o200kWeights, {}),
  }),
  stages(s, budget, guards) {
    const def = (s.compaction ?? {}) as CompactionOptions;
    // Pruning thresholds follow the window: 002's 40K/20K assume a 200K model.
    const protectTokens = Math.min(40_000, Math.round(budget.usable * 0.2));
    const minSavings = Math.min(20_000, Math.round(budget.usable * 0.1));
    // What arrives is reduced before it is first sent; what was sent is rewritten only when that is
    // free or pays for itself (cache-gate.ts).
    return {
      preflight: {
        arrival: createOutputTruncation({
          mode: 'default',
          maxBytes: arrivalBytes(budget),
          ...s.outputTruncation,
          scope: 'unsent',
        }),
        dedup: dedup('default', s.dedup, cacheGated),
        historicalTruncation: historical('cowagent', s.historicalTruncation, cacheGated),
        pruning: cacheGated(createPruning({ mode: 'default', protectTokens, minSavings, ...s.pruning })),
        archiving: cacheGated(createToolArchiving({ strategy: 'heuristic', ...s.archiving })),
        compaction: compaction({
          loopGuardRatio: guards.loopGuardRatio,
          maxFailures: guards.breakerThreshold,
          instructionsShare: 0.01,
          fill: FILL_BOUNDS.min,
          paidSummaryTokens: PAID_SUMMARY_TOKENS,
          ...def,
        }),
        emergencyTrim: createEmergencyTrim({
          trigger: 'target',
          target: 'auto-compact',
          ...s.emergencyTrim,
        }),
        masking: (savings) => renamed('masking', masking(savings)),
      },
      outputTruncation: createOutputTruncation({ mode: 'default', ...s.outputTruncation }),
      manual: manualStage,
    };
  },
};
