/**
 * Stage wrappers that more than one preset uses: a compaction run by hand (`/compact`), co-cli's
 * manual compaction as a stage, and historical truncation and dedup behind the early exits of
 * `engine/incremental.ts`, optionally gated by the prompt cache. The `config` section of a slot is
 * spread over the preset's own options (so `mode` can be changed too); the factories validate the
 * fields and name the one at fault.
 */
import type { Message } from '../../messages/types.ts';
import { historicalAffects, prefixStable } from '../engine/incremental.ts';
import { createDedup, type DedupOptions } from '../stages/dedup.ts';
import {
  createHistoricalTruncation,
  HISTORICAL_TRUNCATION_DEFAULTS,
  type HistoricalTruncationOptions,
} from '../stages/historical-truncation.ts';
import type { Stage, StageContext } from '../types.ts';
import { manualCompact } from './co-cli/manual-compact.ts';

/**
 * A compaction stage run by hand: the breaker and the loop-guard mark do not apply, and focus
 * instructions reach the summarizer.
 */
export function forced(stage: Stage, instructions: string | undefined): Stage {
  return {
    name: stage.name,
    run(messages, ctx) {
      const { lastCompactionTokens: _, ...state } = ctx.state;
      const summarizer: StageContext['summarizer'] =
        instructions === undefined
          ? ctx.summarizer
          : {
              name: ctx.summarizer.name,
              summarize: (req) => ctx.summarizer.summarize({ ...req, instructions }),
            };
      return stage.run(messages, { ...ctx, summarizer, state: { ...state, compactionFailures: 0 } });
    },
  };
}

export function manualStage(instructions: string | undefined): Stage {
  return {
    name: 'manual-compact',
    run: (messages: readonly Message[], ctx: StageContext) =>
      manualCompact(messages, ctx, instructions !== undefined ? { instructions } : {}),
  };
}

/** No gate: the seed presets rewrite what their systems rewrite. */
const ungated = (stage: Stage) => stage;

/**
 * Historical truncation in `mode`, with the early exit of `incremental.ts`; `gate` wraps the stage
 * itself (inside the early exit, so that a deferred change is not looked at again until something new
 * matters or the cache is released).
 */
export function historical(
  mode: 'cowagent' | 'co-cli',
  options: HistoricalTruncationOptions | undefined,
  gate: (stage: Stage) => Stage = ungated,
): Stage {
  const o = { mode, ...options };
  const d = HISTORICAL_TRUNCATION_DEFAULTS;
  const maxChars = o.maxChars ?? ((o.mode ?? mode) === 'co-cli' ? d.coCliMaxChars : d.cowagentMaxChars);
  const affects = historicalAffects(o.mode ?? mode, maxChars, o.protectLast ?? d.protectLast);
  return prefixStable(gate(createHistoricalTruncation(o)), affects);
}

export function dedup(
  mode: 'default' | 'kosmokrator',
  options: DedupOptions | undefined,
  gate: (stage: Stage) => Stage = ungated,
): Stage {
  const stage = createDedup({ mode, ...options });
  return prefixStable(gate(stage), stage.watch());
}
