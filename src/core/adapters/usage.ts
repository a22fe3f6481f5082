/**
 * Provider usage records → the neutral `Usage` (OpenAI's, or Anthropic's as Claude Code trajectories
 * carry), with the prompt cache's reads and writes apart from the input billed in full.
 */
import type { JsonValue, Usage } from '../messages/types.ts';

/** A token count as a provider may report it: a whole number from 0; anything else is no count. */
function countOf(n: JsonValue | undefined): number | undefined {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A count of an OpenAI usage details object (`prompt_tokens_details`, `input_tokens_details`), when it is one. */
function detailOf(details: JsonValue | undefined, key: string): number | undefined {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return undefined;
  return countOf(details[key]);
}

/** Maps an OpenAI/trajectory usage record (or an Anthropic one, as Claude Code trajectories carry). */
export function usageFromRecord(raw: Record<string, JsonValue>): Usage | undefined {
  const num = (k: string) => countOf(raw[k]);
  // A record whose input or output count is present but not a count is not a reading: no usage.
  for (const k of ['prompt_tokens', 'completion_tokens', 'input_tokens', 'output_tokens'])
    if (raw[k] !== undefined && raw[k] !== null && num(k) === undefined) return undefined;
  const details = raw.completion_tokens_details;
  const reasoning =
    num('reasoning_tokens') ??
    (details && typeof details === 'object' && !Array.isArray(details)
      ? countOf(details.reasoning_tokens)
      : undefined);
  let usage: Usage | undefined;
  // OpenAI counts its cached tokens inside the prompt (`prompt_tokens_details.cached_tokens`, the
  // Responses API's `input_tokens_details`), and from GPT-5.6 on the tokens it wrote to the cache
  // (`cache_write_tokens`, billed 1.25×) too; Anthropic counts both beside it. `inputTokens` is what
  // was neither read from the cache nor written to it, either way.
  const detail = (key: string) =>
    detailOf(raw.prompt_tokens_details, key) ?? detailOf(raw.input_tokens_details, key);
  const cached = detail('cached_tokens');
  const written = detail('cache_write_tokens');
  if (num('prompt_tokens') !== undefined || num('completion_tokens') !== undefined) {
    usage = { inputTokens: num('prompt_tokens') ?? 0, outputTokens: num('completion_tokens') ?? 0 };
    const total = num('total_tokens');
    if (total !== undefined) usage.totalTokens = total;
  } else if (num('input_tokens') !== undefined || num('output_tokens') !== undefined) {
    usage = { inputTokens: num('input_tokens') ?? 0, outputTokens: num('output_tokens') ?? 0 };
    const read = num('cache_read_input_tokens');
    const write = num('cache_creation_input_tokens');
    if (read !== undefined) usage.cacheReadTokens = read;
    if (write !== undefined) usage.cacheWriteTokens = write;
  }
  // A cached count larger than the input it is part of is not a reading of this call: dropped.
  if (usage && cached !== undefined && cached <= usage.inputTokens) {
    usage.cacheReadTokens = cached;
    usage.inputTokens = Math.max(0, usage.inputTokens - cached);
  }
  if (
    usage &&
    written !== undefined &&
    usage.cacheWriteTokens === undefined &&
    written <= usage.inputTokens
  ) {
    usage.cacheWriteTokens = written;
    usage.inputTokens -= written;
  }
  if (usage && reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (usage && typeof raw.stop_reason === 'string') usage.stopReason = raw.stop_reason;
  return usage;
}
