/**
 * `tiancai`: the Go agent of seed 003 (SEED-RULES §5). Before each call, tool results beyond the
 * newest 10 are archived behind a digest (§5.3), then the compaction runs when the usage-anchored
 * estimate (§5.5) reaches the effective limit (§5.4: window − reserve, else MaxTokens 8000), keeping
 * recent messages by a token budget and summarising the rest with a digest of their tool results
 * (§5.6). Every tool result is cut when it arrives, errors included (§5.2). Its estimate is four bytes
 * a token.
 */
import * as z from 'zod/mini';
import { createBudget, effectiveTokenLimit } from '../../../budget/budget.ts';
import { CtxError } from '../../../errors.ts';
import { createChars4Counter } from '../../../tokens/estimators.ts';
import { LIMITS } from '../../limits.ts';
import {
  createToolArchiving,
  normalizeToolSummaryStrategy,
  type ToolArchivingOptions,
} from '../../stages/archiving.ts';
import { createOutputTruncation } from '../../stages/output-truncation.ts';
import type { Stage } from '../../types.ts';
import type { PresetDefinition } from '../definition.ts';
import { singleLimit } from '../preset-budgets.ts';
import { forced } from '../preset-stages.ts';
import { type TiancaiCompactionOptions, tiancaiCompaction } from './tiancai-compaction.ts';

/**
 * tiancai's archiving (003 §5.3): cutoff 10 and 003's strategy names — any case, surrounding spaces,
 * empty or unknown → `llm`; an unknown name is named in every report of the stage.
 */
export function tiancaiArchiving(options: ToolArchivingOptions | undefined): Stage {
  const raw: unknown = options?.strategy;
  if (raw !== undefined && typeof raw !== 'string')
    throw new CtxError('invalid_config', 'expected a strategy name (llm, heuristic or off)', {
      path: 'archiving.strategy',
    });
  const { strategy, warning } = normalizeToolSummaryStrategy(raw ?? 'llm');
  const stage = createToolArchiving({ cutoff: 10, ...options, strategy });
  if (warning === undefined) return stage;
  return {
    name: stage.name,
    async run(messages, ctx) {
      const result = await stage.run(messages, ctx);
      const detail = result.report.detail ? `${result.report.detail}; ${warning}` : warning;
      return { ...result, report: { ...result.report, detail } };
    },
  };
}

export const tiancaiPreset: PresetDefinition = {
  sections: ['outputTruncation', 'archiving', 'compaction'],
  options: { maxTokens: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.tokens))) },
  anchor: 'reported',
  budget(c, b) {
    // 003 §5.4: window − reserve when a window is given, else MaxTokens (8000).
    const limitConfig: Parameters<typeof effectiveTokenLimit>[0] = { maxTokens: c.maxTokens ?? 8000 };
    if (b.contextWindow !== undefined) limitConfig.contextWindow = b.contextWindow;
    if (b.reserveOutput !== undefined) limitConfig.reserveTokens = b.reserveOutput;
    const limit = effectiveTokenLimit(limitConfig) ?? Number.MAX_SAFE_INTEGER;
    const reserve = (b.reserveOutput ?? 16384) > 0 ? (b.reserveOutput ?? 16384) : 16384;
    const window = b.contextWindow ?? 0;
    // The budget's window/reserve are 003's, so the compaction stage derives the same limit from it.
    const budget =
      window - reserve > 0
        ? createBudget({
            contextWindow: window,
            reserveOutput: reserve,
            warningBuffer: 0,
            autoCompactBuffer: 0,
            blockingBuffer: 0,
          })
        : singleLimit(limit);
    const compaction = {
      contextWindow: window - reserve > 0 ? window : 0,
      reserveTokens: reserve,
      maxTokens: c.maxTokens ?? 8000,
      ...c.compaction,
    };
    return { budget, counter: createChars4Counter(), sections: { ...c, compaction } };
  },
  stages(s) {
    const tiancai = (s.compaction ?? {}) as TiancaiCompactionOptions;
    return {
      preflight: {
        archiving: tiancaiArchiving(s.archiving),
        compaction: tiancaiCompaction(tiancai),
      },
      outputTruncation: createOutputTruncation({ mode: 'tiancai', ...s.outputTruncation }),
      manual: (instructions) => forced(tiancaiCompaction({ ...tiancai, trigger: 'always' }), instructions),
    };
  },
};
