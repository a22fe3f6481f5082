/**
 * The memory block of a session: memories + session recall, computed on the first prompt build
 * and frozen (stored with the session state) so the system-prompt prefix stays cacheable.
 * Compaction clears it; the next build computes a fresh one.
 */

import type { TokenCounter } from '../ports.ts';
import { screenMemories, screenRecall } from './injection-scanner.ts';
import type { MemoryBlock } from './memory-block-types.ts';
import { formatMemories, formatSessionRecall } from './memory-injector.ts';
import type { MemoryRecord } from './memory-store.ts';
import type { RecallHit, SessionState } from './session-store.ts';

export type { DroppedEntry, MemoryBlock } from './memory-block-types.ts';

export interface BuildMemoryBlockOptions {
  counter: TokenCounter;
  /** Token cap of the whole block; memories are dropped from the end until it fits. @default 1500 */
  maxTokens?: number;
  now: number;
}

export function buildMemoryBlock(
  memories: readonly MemoryRecord[],
  recall: readonly RecallHit[],
  options: BuildMemoryBlockOptions,
): MemoryBlock {
  const cap = options.maxTokens ?? 1500;
  // Hostile entries never reach the prompt (002 §4.11); the block records which were dropped.
  const screened = screenMemories(memories);
  const screenedRecall = screenRecall(recall);
  let kept = screened.safe;
  let hits = screenedRecall.safe.slice(0, 3);
  const render = () => formatMemories(kept) + formatSessionRecall(hits);
  let text = render();
  while (options.counter.countText(text) > cap && (hits.length > 0 || kept.length > 0)) {
    if (hits.length > 0) hits = hits.slice(0, -1);
    else kept = kept.slice(0, -1);
    text = render();
  }
  return {
    text,
    memoryIds: kept.map((m) => m.id),
    recallCount: hits.length,
    tokens: options.counter.countText(text),
    computedAt: options.now,
    dropped: [...screened.dropped, ...screenedRecall.dropped],
  };
}

/**
 * The frozen block of the session, computing it only when the state has none. Returns the state
 * itself when a block is already there.
 */
export async function ensureMemoryBlock(
  state: SessionState,
  compute: () => Promise<MemoryBlock>,
): Promise<{ state: SessionState; block: MemoryBlock }> {
  if (state.memoryBlock) return { state, block: state.memoryBlock };
  const block = await compute();
  return { state: { ...state, memoryBlock: block }, block };
}

/** After compaction: the block is recomputed on the next build. */
export function clearMemoryBlock(state: SessionState): SessionState {
  return state.memoryBlock === null ? state : { ...state, memoryBlock: null };
}
