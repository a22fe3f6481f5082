/**
 * The runner's context estimate. It anchors to the provider's last reported usage (003 §5.5) while
 * the messages up to that anchor are the ones the provider saw. Once a stage changes anything at or
 * before the anchor, the anchor is kept but rescaled (`rescalePrefix`): what the provider counted beyond
 * the counter is split into a fixed overhead (a system prompt or tool schemas the caller did not pass)
 * and, within a tolerance, the counter's own error, which scales with the prefix. When the anchor
 * message itself is gone (summarised or trimmed away), the estimate falls back to the pure count.
 *
 * Why not a plain difference: the provider counts with its own tokenizer; subtracting the counter's
 * tokens from the provider's total can go below zero when the counter over-counts. And why not a pure
 * ratio: scaling a fixed system prompt with a prefix that compaction shrank twentyfold over-counts it.
 */
import type { BudgetLevel, ContextBudget } from '../../budget/budget.ts';
import type { Message, ToolDefinition, Usage } from '../../messages/types.ts';
import { toModelView } from '../../messages/visibility.ts';
import type { TokenCounter } from '../../ports.ts';
import { findUsageAnchor, toolsJson, usageTotal } from '../../tokens/context.ts';
import { answersSent, plausibleUsage, type SentRecord } from './sent.ts';

/** The prompt side of a usage: what the provider counted of the request (input and cache). */
function usageInput(u: Usage): number {
  const input = u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  return input > 0 ? input : usageTotal(u);
}

/**
 * Which reported usage the estimate may rest on. `sent`: only a usage that answered the send recorded
 * in the state (see sent.ts). `reported`: the newest usage (003 §5.5, the caller vouches that it
 * measured these messages). `false`: the count alone. Either way an anchor only raises the estimate
 * above the count, never lowers it.
 */
export type AnchorMode = 'sent' | 'reported' | false;

export interface Measure {
  tokens: number;
  level: BudgetLevel;
  /** True when the figure rests on the provider's reported usage. */
  anchored: boolean;
}

/** The provider's usage as seen in the input of a run. */
export interface Anchor {
  id: string;
  /** The provider's total at the anchor (system + tools + messages up to and including it). */
  total: number;
  /** Counter tokens of the input messages up to and including the anchor. */
  prefix: number;
}

export interface Estimator {
  readonly system: number;
  readonly tools: number;
  readonly anchor: Anchor | undefined;
  measure(messages: readonly Message[]): Measure;
  /** Sum of message counts (no system, no tools, no anchor). */
  count(messages: readonly Message[]): number;
}

export interface EstimatorOptions {
  counter: TokenCounter;
  budget: ContextBudget;
  system?: string | undefined;
  tools?: readonly ToolDefinition[] | undefined;
  /** Messages whose usage anchors the estimate; omit (or `anchor: false`) for the pure count. */
  input: readonly Message[];
  /** `true` means `reported`. @default 'sent' */
  anchor?: AnchorMode | boolean;
  /** What the previous run sent (`PipelineState.sent`), for `sent` anchoring. */
  sent?: SentRecord | undefined;
}

function sum(counter: TokenCounter, messages: readonly Message[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += counter.countMessage(messages[i]!);
  return n;
}

/** Index of the message with `id`, looking first at `hint`. */
function indexOfId(messages: readonly Message[], id: string, hint: number): number {
  if (messages[hint]?.id === id) return hint;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i;
  return -1;
}

export function createEstimator(options: EstimatorOptions): Estimator {
  const { counter, budget, input } = options;
  const system = options.system ? counter.countText(options.system) : 0;
  const tools = options.tools && options.tools.length > 0 ? counter.countText(toolsJson(options.tools)) : 0;
  let anchor: Anchor | undefined;
  let anchorIndex = -1;
  const mode = options.anchor === true ? 'reported' : (options.anchor ?? 'sent');
  if (mode !== false) {
    anchorIndex = findUsageAnchor(input);
    const proven =
      anchorIndex >= 0 &&
      answersSent(input, anchorIndex, options.sent, options.system, options.tools) &&
      plausibleUsage(usageInput(input[anchorIndex]!.usage!), options.sent!.tokens);
    if (anchorIndex >= 0 && (proven || mode === 'reported')) {
      const m = input[anchorIndex]!;
      anchor = {
        id: m.id,
        total: usageTotal(m.usage!),
        prefix: sum(counter, input, 0, anchorIndex + 1),
      };
    } else anchorIndex = -1;
  }
  const count = (messages: readonly Message[]) => sum(counter, messages, 0, messages.length);
  // What is sent: an archived tool result counts as the stub the model view sends in its place
  // (`toModelView`), not as nothing — dozens of stubs left the estimate a thousand tokens under the
  // send at 32K, and a send over usable input at level `warn`.
  const pure = (messages: readonly Message[]): Measure => {
    const tokens = system + tools + count(toModelView(messages));
    return { tokens, level: budget.level(tokens), anchored: false };
  };
  return {
    system,
    tools,
    anchor,
    count,
    measure(messages) {
      if (!anchor) return pure(messages);
      const j = indexOfId(messages, anchor.id, anchorIndex);
      if (j < 0 || messages[j]!.meta?.agentVisible === false) return pure(messages);
      const after = sum(counter, messages, j + 1, messages.length);
      let prefixTokens = anchor.total;
      // Unchanged prefix (the usual case): same objects, nothing to rescale.
      const same = messages === input || (j === anchorIndex && samePrefix(messages, input, j));
      if (!same)
        prefixTokens =
          system + tools + rescalePrefix(anchor, system + tools, sum(counter, messages, 0, j + 1));
      const tokens = prefixTokens + after;
      // A provider that counted more than the counter shows what the counter misses (a system prompt
      // or framing the caller did not pass); one that counted less never lowers the count, so that
      // the send is within usable by ctxkit's own count too.
      const counted = system + tools + sum(counter, messages, 0, j + 1) + after;
      if (counted >= tokens) return { tokens: counted, level: budget.level(counted), anchored: false };
      return { tokens, level: budget.level(tokens), anchored: true };
    },
  };
}

/** How far the counter may be off before the rest of a provider's surplus is taken as fixed overhead. */
export const COUNTER_TOLERANCE = 0.1;

/**
 * The provider's count of a prefix that the stages changed. When the provider counted more than the
 * counter did, the surplus is mostly what the caller did not pass (the real system prompt, tool
 * schemas, framing): it stays as a fixed amount, and only up to `COUNTER_TOLERANCE` of it is taken as
 * the counter's own under-count and scaled with the prefix. When the provider counted less, the
 * counter over-counts, and the ratio scales the new prefix down. Exact when nothing changed.
 */
export function rescalePrefix(
  anchor: Pick<Anchor, 'total' | 'prefix'>,
  passedOverhead: number,
  now: number,
): number {
  const provider = Math.max(0, anchor.total - passedOverhead);
  if (anchor.prefix <= 0) return provider + now;
  if (provider < anchor.prefix) return Math.round((provider * now) / anchor.prefix);
  const scale = Math.min(1 + COUNTER_TOLERANCE, provider / anchor.prefix);
  const fixed = provider - anchor.prefix * scale;
  return Math.round(fixed + now * scale);
}

function samePrefix(a: readonly Message[], b: readonly Message[], last: number): boolean {
  for (let i = last; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}
