/**
 * The client's history as its previous call brought it, kept per isolate and per session (a
 * stateless caller: per tenant): the body text, where each history element lies in it, and each
 * element's neutral form. A client resends its whole conversation every call; the elements whose text
 * is the same, character for character, as last time are not validated and converted again, and keep
 * their message objects, so digests and token counts memoised per object hold. Only a protocol whose
 * elements convert each on its own takes part (`Protocol.historyField`).
 */
import type { Message } from '../../core/index.ts';
import { type ArrayLayout, sameLeading, scanArrayField } from './json-scan.ts';
import type { KnownElements } from './protocol.ts';

/** Sessions remembered per isolate at most. @default 64 */
export const HISTORY_MEMO_ENTRIES = 64;
/** Characters of body text remembered per isolate at most (the neutral forms take about as much). @default 4_000_000 */
export const HISTORY_MEMO_CHARS = 4_000_000;

interface Entry {
  text: string;
  layout: ArrayLayout;
  elements: ReadonlyArray<readonly Message[]>;
}

const entries = new Map<string, Entry>();
let chars = 0;

function drop(key: string): void {
  const e = entries.get(key);
  if (!e) return;
  entries.delete(key);
  chars -= e.text.length;
}

export interface Recalled {
  /** What of the previous call's history this call repeats (undefined: nothing usable). */
  known: KnownElements | undefined;
  /** This call's layout, to remember it by (undefined: the text could not be laid out). */
  layout: ArrayLayout | undefined;
}

/** What the previous call under `key` converted that this call's `text` repeats. */
export function recallHistory(key: string, text: string, field: string): Recalled {
  const layout = scanArrayField(text, field);
  const prev = entries.get(key);
  if (!layout || !prev) return { known: undefined, layout };
  const count = sameLeading(prev.text, prev.layout, text, layout);
  return { known: count > 0 ? { count, elements: prev.elements } : undefined, layout };
}

/** Remembers this call's history under `key` (the newest in, the oldest out past the bounds). */
export function rememberHistory(
  key: string,
  text: string,
  layout: ArrayLayout,
  elements: ReadonlyArray<readonly Message[]>,
): void {
  drop(key);
  if (elements.length !== layout.ends.length || text.length > HISTORY_MEMO_CHARS / 4) return;
  entries.set(key, { text, layout, elements });
  chars += text.length;
  for (const k of entries.keys()) {
    if (chars <= HISTORY_MEMO_CHARS && entries.size <= HISTORY_MEMO_ENTRIES) break;
    drop(k);
  }
}
