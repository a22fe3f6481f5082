/**
 * Picks the prompt family for a request: by purpose first (memory flush, tool results, the co-cli
 * window), then by preset for a compaction, automatic or manual (`/compact`).
 */
import type { SummarizeRequest } from '../../core/index.ts';
import { coCliPrompt } from './co-cli.ts';
import { cowagentPrompt } from './cowagent.ts';
import { kosmokratorPrompt } from './kosmokrator.ts';
import { tiancaiBatchPrompt, tiancaiCheckpointPrompt, tiancaiToolPrompt } from './tiancai.ts';
import type { PromptPlan } from './types.ts';

export type { ParsedAnswer, PromptPlan } from './types.ts';

export function buildPrompt(request: SummarizeRequest): PromptPlan {
  const { messages, previousSummary, instructions } = request;
  switch (request.purpose) {
    case 'memory-flush':
      return cowagentPrompt(messages, previousSummary, instructions);
    case 'tool-result':
      return tiancaiToolPrompt(messages, instructions);
    case 'tool-batch':
      return tiancaiBatchPrompt(messages, instructions);
    case 'sliding-window':
      return coCliPrompt(messages, previousSummary, instructions);
    case 'manual-compact':
    case 'compaction':
      if (request.preset === 'tiancai')
        return tiancaiCheckpointPrompt(messages, previousSummary, instructions);
      if (request.preset === 'co-cli') return coCliPrompt(messages, previousSummary, instructions);
      if (request.preset === 'cowagent') return cowagentPrompt(messages, previousSummary, instructions);
      return kosmokratorPrompt(messages, previousSummary, instructions);
  }
}
