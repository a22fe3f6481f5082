/**
 * `kosmokrator` (seed 002, SEED-RULES §4): the pre-flight of `ContextManager::preFlightCheck` (§4.6) —
 * dedup of superseded results (§4.2), pruning into placeholders (§4.3), LLM compaction with memory
 * extraction behind a circuit breaker (§4.7–4.8), and oldest-turn trimming once per call (§4.9). A
 * tool output is cut when it arrives (§4.1). Its budget (§4.5: window − reserve, with warning,
 * auto-compact and blocking buffers) is the library's default; its own token estimate (§4.4).
 */
import { createKosmokratorCounter } from '../../../tokens/estimators.ts';
import { LIMITS } from '../../limits.ts';
import { createEmergencyTrim } from '../../stages/emergency-trim.ts';
import { createOutputTruncation } from '../../stages/output-truncation.ts';
import { createPruning } from '../../stages/pruning.ts';
import type { PresetDefinition } from '../definition.ts';
import { presetBudget } from '../preset-budgets.ts';
import { dedup, forced } from '../preset-stages.ts';
import { type KosmokratorCompactionOptions, kosmokratorCompaction } from './kosmokrator-compaction.ts';

export const kosmokratorPreset: PresetDefinition = {
  sections: ['outputTruncation', 'dedup', 'pruning', 'compaction', 'emergencyTrim'],
  anchor: false,
  budget: (_c, b) => ({ budget: presetBudget('kosmokrator', b), counter: createKosmokratorCounter() }),
  stages(s, _budget, guards) {
    const kosmo = (s.compaction ?? {}) as KosmokratorCompactionOptions;
    // The breaker's largest threshold: 1,000 failures in a row, never reached in practice.
    const never = LIMITS.small;
    return {
      preflight: {
        dedup: dedup('kosmokrator', s.dedup),
        pruning: createPruning({ mode: 'kosmokrator', ...s.pruning }),
        compaction: kosmokratorCompaction({ maxFailures: guards.breakerThreshold, ...kosmo }),
        // trimOldest once per call; the flow decides when (blocking, or right after a failed compaction).
        emergencyTrim: createEmergencyTrim({
          minTurns: 1,
          maxTurns: 1,
          trigger: 'target',
          target: 1,
          ...s.emergencyTrim,
        }),
      },
      outputTruncation: createOutputTruncation({ mode: 'kosmokrator', ...s.outputTruncation }),
      manual: (instructions) => forced(kosmokratorCompaction({ ...kosmo, maxFailures: never }), instructions),
    };
  },
};
