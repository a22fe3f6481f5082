/**
 * Equality of messages and session states by content, without serialising what did not change.
 * A session's turn compares the working context a run left with the one stored (is a rewrite due?)
 * and each of its messages with its log row (a reference or a literal?). Messages are immutable (no
 * stage mutates one), so the same object is the same content, and an object's JSON text, once
 * computed, holds for its lifetime: it is kept per object (weakly), so a replaced tool result and its
 * log row are serialised once per session object, not on every turn.
 */
import type { Message } from '../messages/types.ts';
import type { SessionState, WorkingContext, WorkingItem } from './session-store.ts';

const texts = new WeakMap<object, string>();

/** The JSON text of an immutable value, computed once per object. */
function jsonOf(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/** Whether two messages have the same content: the same object, or the same JSON text. */
export function sameMessage(a: Message, b: Message): boolean {
  return a === b || (a.id === b.id && a.parts.length === b.parts.length && jsonOf(a) === jsonOf(b));
}

function sameItem(a: WorkingItem, b: WorkingItem): boolean {
  if ('seq' in a) return 'seq' in b && a.seq === b.seq;
  return 'message' in b && sameMessage(a.message, b.message);
}

function sameWorking(a: WorkingContext | null, b: WorkingContext | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a.throughSeq !== b.throughSeq || a.items.length !== b.items.length) return false;
  return a.items.every((item, i) => sameItem(item, b.items[i]!));
}

/** JSON equality of small parts (absent and `undefined` alike, as JSON). */
function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Whether two session states have the same content (what `JSON.stringify(a) === JSON.stringify(b)`
 * says when their keys come in the same order), comparing the working context item by item.
 */
export function sameSessionState(a: SessionState, b: SessionState): boolean {
  if (a === b) return true;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const x = a[key as keyof SessionState];
    const y = b[key as keyof SessionState];
    if (
      key === 'working'
        ? !sameWorking(x as WorkingContext | null, y as WorkingContext | null)
        : !sameJson(x, y)
    )
      return false;
  }
  return true;
}
