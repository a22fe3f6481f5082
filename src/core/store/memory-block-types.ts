/**
 * The memory block's data, apart from the code that builds it: the session state stores a
 * `MemoryBlock` (`session-store.ts`) and the scanner reports `DroppedEntry`s (`injection-scanner.ts`),
 * while the block's builder uses both — a third file, so that none of them imports another in a circle.
 */

/** An entry left out of the memory block, and why. */
export interface DroppedEntry {
  kind: 'memory' | 'recall';
  /** Memory id, or `{sessionId}#{seq}` for recall. */
  id: string;
  issues: string[];
}

export interface MemoryBlock {
  /** Appended verbatim to the system prompt. */
  text: string;
  memoryIds: string[];
  recallCount: number;
  tokens: number;
  computedAt: number;
  /** Entries the prompt-injection scan kept out of the block (absent in blocks stored before it). */
  dropped?: DroppedEntry[];
}
