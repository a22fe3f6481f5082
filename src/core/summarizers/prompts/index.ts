/**
 * Picks the prompt family for a request: by purpose first (memory flush, tool results, the co-cli
 * window), then by preset for a compaction, automatic or manual (`/compact`); 002's and `default`'s
 * one-call compaction asks on the agent's last send when the request carries it (`cached-prefix.ts`).
 */
import type { SummarizeRequest } from '../../ports.ts';
import { cachedPrefixPrompt } from './cached-prefix.ts';
import { coCliPrompt } from './co-cli.ts';
import { cowagentPrompt } from './cowagent.ts';
import { kosmokratorPrompt, kosmokratorTwoCallPrompt } from './kosmokrator.ts';
import { tiancaiBatchPrompt, tiancaiCheckpointPrompt, tiancaiToolPrompt } from './tiancai.ts';
import type { PromptOptions, PromptPlan } from './types.ts';

export { CACHED_PREFIX_FAMILY } from './cached-prefix.ts';
export type { ParsedAnswer, PromptOptions, PromptPlan } from './types.ts';

export function buildPrompt(request: SummarizeRequest, options: PromptOptions = {}): PromptPlan {
  switch (request.purpose) {
    case 'memory-flush':
      return cowagentPrompt(request);
    case 'tool-result':
      return tiancaiToolPrompt(request);
    case 'tool-batch':
      return tiancaiBatchPrompt(request);
    case 'sliding-window':
      return coCliPrompt(request);
    case 'manual-compact':
    case 'compaction':
      if (request.preset === 'tiancai') return tiancaiCheckpointPrompt(request);
      if (request.preset === 'co-cli') return coCliPrompt(request);
      if (request.preset === 'cowagent') return cowagentPrompt(request);
      if (request.sent && options.memoryExtraction !== 'second-call')
        return cachedPrefixPrompt({ ...request, sent: request.sent });
      return options.memoryExtraction === 'second-call'
        ? kosmokratorTwoCallPrompt(request)
        : kosmokratorPrompt(request);
  }
}
