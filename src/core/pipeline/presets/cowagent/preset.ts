/**
 * `cowagent`: CowAgent's short-term memory (seed 000, SEED-RULES §1) with its memory flush (seed 004,
 * §2.3). Before each call: the background summaries planned by an earlier trim are applied (§1.8),
 * historical tool results are cut (§1.4), then turn-count and token-budget trimming (§1.6–1.7). A tool
 * result is capped when it arrives (§1.5). One limit: `max_context_tokens` (50000), or the window less
 * 10 % when only a window is given (§1.7); its own token estimate (§1.9); no usage anchoring.
 */
import { createCowagentCounter } from '../../../tokens/estimators.ts';
import { createOutputTruncation } from '../../stages/output-truncation.ts';
import type { PresetDefinition } from '../definition.ts';
import { singleLimit } from '../preset-budgets.ts';
import { historical, manualStage } from '../preset-stages.ts';
import { applyPendingInjections } from './apply-pending-injections.ts';
import { cowagentTrim } from './cowagent-trim.ts';

export const cowagentPreset: PresetDefinition = {
  sections: ['outputTruncation', 'historicalTruncation', 'cowagentTrim'],
  anchor: false,
  budget(c, b) {
    // 000 §1.7: max_context_tokens (50000), else window − 10 % when only a window is configured.
    const given = c.cowagentTrim?.maxContextTokens;
    const window = b.contextWindow;
    const max =
      typeof given === 'number' ? given : window !== undefined ? window - Math.floor(0.1 * window) : 50_000;
    return {
      budget: singleLimit(max),
      counter: createCowagentCounter(),
      sections: { ...c, cowagentTrim: { ...c.cowagentTrim, maxContextTokens: max } },
    };
  },
  stages: (s) => ({
    preflight: {
      applyPendingInjections: applyPendingInjections(),
      historicalTruncation: historical('cowagent', s.historicalTruncation),
      cowagentTrim: cowagentTrim(s.cowagentTrim),
    },
    outputTruncation: createOutputTruncation({ mode: 'cowagent', ...s.outputTruncation }),
    manual: manualStage,
  }),
};
