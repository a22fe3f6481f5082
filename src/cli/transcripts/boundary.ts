/**
 * Where a transcript's harness compacted it: after a Claude Code `compact_boundary` (a `system` line in
 * its JSONL, an `events[]` entry of the normalized trajectory format) the model sees the summary message
 * (`isCompactSummary`) and what follows, not what came before. `inspect` counts from there, as the
 * provider's recorded usage does.
 */
import type { JsonValue, Message } from '../../core/index.ts';

export interface CompactionBoundary {
  /** Index of the first message after the last boundary (the harness's summary). */
  index: number;
  /** What marked it: a `compact_boundary` event, or only the summary message's `isCompactSummary`. */
  source: 'compact_boundary' | 'isCompactSummary';
  /** The JSONL line of the event, when the transcript is Claude Code's own file. */
  line?: number;
  /** `auto` or `manual`, and the tokens the harness counted before compacting (`compactMetadata`). */
  trigger?: string;
  preTokens?: number;
}

/** A boundary event as read: where it falls among the messages, with its metadata. */
export interface BoundaryEvent {
  at: number;
  line?: number;
  detail?: JsonValue;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `compact_boundary` entries of a trajectory's `events` (`at_message_index`), ignoring others. */
export function trajectoryBoundaries(events: unknown): BoundaryEvent[] {
  if (!Array.isArray(events)) return [];
  return events.flatMap((e): BoundaryEvent[] =>
    isObj(e) && e.type === 'compact_boundary' && Number.isInteger(e.at_message_index)
      ? [
          {
            at: e.at_message_index as number,
            ...(isObj(e.compactMetadata) ? { detail: e.compactMetadata as JsonValue } : {}),
          },
        ]
      : [],
  );
}

/** The last boundary of a transcript: its last event inside the messages, else its last summary message. */
export function lastBoundary(
  messages: readonly Message[],
  events: readonly BoundaryEvent[] = [],
): CompactionBoundary | undefined {
  const event = events.filter((e) => e.at > 0 && e.at < messages.length).at(-1);
  if (event) {
    const out: CompactionBoundary = { index: event.at, source: 'compact_boundary' };
    if (event.line !== undefined) out.line = event.line;
    if (isObj(event.detail)) {
      if (typeof event.detail.trigger === 'string') out.trigger = event.detail.trigger;
      if (typeof event.detail.preTokens === 'number') out.preTokens = event.detail.preTokens;
    }
    return out;
  }
  for (let i = messages.length - 1; i > 0; i--)
    if (messages[i]!.meta?.isCompactSummary === true) return { index: i, source: 'isCompactSummary' };
  return undefined;
}
