/**
 * Anthropic's prompt cache needs breakpoints: a `cache_control` on a block marks the prefix up to it
 * as cacheable, and a later request reads it back when its prefix is byte-identical (looking back
 * at most 20 blocks from each breakpoint). `toAnthropic` places them on the parts of a send that stay
 * put between calls, at most four (the API's limit):
 * 1. the end of the system prompt (tools and system are the first thing cached);
 * 2. ctxkit's compaction summary (it heads everything after it until the next compaction);
 * 3. the end of the previous send — the message before the last assistant message — so that a step
 *    that added more than 20 blocks (many parallel tool calls) still finds what the last call cached;
 * 4. the last message (this call's prefix is written for the next).
 * A caller that set any `cache_control` itself keeps its own and gets none of these.
 */
import type { JsonValue, Message } from '../messages/types.ts';

type Block = Record<string, JsonValue>;

export const EPHEMERAL = { type: 'ephemeral' } as const;

/** Whether any part of `messages` carries a caller's `cache_control` (a kept extra or a pass-through block). */
export function hasCacheHints(messages: readonly Message[]): boolean {
  for (const m of messages)
    for (const p of m.parts) {
      if (p.extra && 'cache_control' in p.extra) return true;
      if (p.type === 'opaque' && p.source === 'anthropic') {
        const v = p.value;
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'cache_control' in v) return true;
      }
    }
  return false;
}

/** Blocks the API takes a breakpoint on: not thinking, and no empty text. */
function markable(b: Block): boolean {
  if (b.type === 'thinking' || b.type === 'redacted_thinking') return false;
  return !(b.type === 'text' && b.text === '');
}

/** `content` with a breakpoint on its last markable block (a copy of that block; the input is not changed). */
export function withBreakpoint(content: Block[]): Block[] {
  for (let i = content.length - 1; i >= 0; i--)
    if (markable(content[i]!)) {
      const out = content.slice();
      out[i] = { ...content[i]!, cache_control: EPHEMERAL };
      return out;
    }
  return content;
}

/**
 * Positions in the request's message list to mark: the summary, the end of the previous send and the
 * last message (`owner[i]` is the request message neutral message `i` went into).
 */
export function breakpointTargets(
  messages: readonly Message[],
  owner: readonly number[],
  count: number,
): number[] {
  const targets = new Set<number>();
  let summary = -1;
  let lastAssistant = -1;
  messages.forEach((m, i) => {
    if (m.meta?.kind === 'summary' && owner[i]! >= 0) summary = i;
    if (m.role === 'assistant') lastAssistant = i;
  });
  if (summary >= 0) targets.add(owner[summary]!);
  if (lastAssistant > 0 && owner[lastAssistant - 1]! >= 0) targets.add(owner[lastAssistant - 1]!);
  if (count > 0) targets.add(count - 1);
  return [...targets].sort((a, b) => a - b).slice(-3);
}
