/**
 * `co-cli` (seed 001, SEED-RULES §3): before each call, tool returns from earlier turns are cut
 * (§3.1, `truncate_tool_returns`), then the history window keeps its head and tail and summarises the
 * middle (§3.2, `truncate_history_window`); `/compact` replaces the whole history with its summary
 * (§3.3). co-cli keeps no token count: ctxkit estimates a token per four characters (code points),
 * with the default budget's buffers scaled to the window; no usage anchoring.
 */
import { createChars4Counter } from '../../../tokens/estimators.ts';
import type { PresetDefinition } from '../definition.ts';
import { presetBudget, scaledBudget } from '../preset-budgets.ts';
import { historical, manualStage } from '../preset-stages.ts';
import { slidingWindow } from './sliding-window.ts';

export const coCliPreset: PresetDefinition = {
  sections: ['historicalTruncation', 'slidingWindow'],
  anchor: false,
  budget: (_c, b) => ({
    budget: presetBudget('co-cli', scaledBudget(b)),
    counter: createChars4Counter({ unit: 'chars' }),
  }),
  stages: (s) => ({
    preflight: {
      historicalTruncation: historical('co-cli', s.historicalTruncation),
      slidingWindow: slidingWindow(s.slidingWindow),
    },
    manual: manualStage,
  }),
};
