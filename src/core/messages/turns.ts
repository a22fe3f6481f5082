import { startsTurn } from './text.ts';
import type { Message } from './types.ts';

/** A turn: `[start, end)` indices into the message list. `leading` marks messages before the first real user message. */
export interface Turn {
  start: number;
  end: number;
  leading: boolean;
}

/**
 * Splits messages into turns. A turn starts at a user message that carries text and no tool
 * results, and runs to the next one. Messages before the first such message form a leading
 * partial turn. System messages at the very start are *not* part of any turn when `skipLeadingSystem`.
 */
export function segmentTurns(
  messages: readonly Message[],
  options: { skipLeadingSystem?: boolean } = {},
): Turn[] {
  const turns: Turn[] = [];
  let i = 0;
  if (options.skipLeadingSystem) while (i < messages.length && messages[i]!.role === 'system') i++;
  let current: Turn | undefined;
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (startsTurn(m)) {
      if (current) turns.push(current);
      current = { start: i, end: i + 1, leading: false };
    } else if (current) {
      current.end = i + 1;
    } else {
      current = { start: i, end: i + 1, leading: true };
    }
  }
  if (current) turns.push(current);
  return turns;
}

/** Number of real turns (leading partial turn excluded). */
export function countTurns(messages: readonly Message[]): number {
  return segmentTurns(messages).filter((t) => !t.leading).length;
}
