/**
 * What the deterministic summarizer reads of a message's text — the request line and the constraint
 * sentences of a user's request, the decision sentences of an assistant message — memoized by the text
 * itself, one memo per summarizer. A compaction folds a hundred messages or more; the summarizer's
 * `ahead` reads each text as it arrives (above warning, where the compaction stage reads ahead), so the
 * compaction reads only the few it has not seen. The values are functions of the text alone, so a hit
 * is the answer a fresh read gives. Bounded: each memo holds at most `MAX_CHARS` characters of keys,
 * oldest out first; longer texts are not kept.
 */
import { clip, constraintSentences, decisionSentences, oneLine } from './extract.ts';

const MAX_CHARS = 2_000_000;

export interface Request {
  line: string;
  constraints: readonly string[];
}

function bounded<V>(compute: (text: string) => V): (text: string) => V {
  const memo = new Map<string, V>();
  let chars = 0;
  return (text) => {
    const hit = memo.get(text);
    if (hit !== undefined) return hit;
    const value = compute(text);
    if (text.length > MAX_CHARS / 8) return value;
    memo.set(text, value);
    chars += text.length;
    for (const key of memo.keys()) {
      if (chars <= MAX_CHARS) break;
      memo.delete(key);
      chars -= key.length;
    }
    return value;
  };
}

export interface SentenceMemo {
  /** A user's request: its line for `## Goal` / `Last request` and its constraint sentences, clipped. */
  requestOf(text: string): Request;
  /** An assistant message's decision sentences, clipped. */
  decisionsOf(text: string): readonly string[];
}

export function createSentenceMemo(): SentenceMemo {
  return {
    requestOf: bounded((text) => ({
      line: clip(oneLine(text), 400),
      constraints: constraintSentences(text).map((s) => clip(s, 300)),
    })),
    decisionsOf: bounded((text) => decisionSentences(text).map((s) => clip(s, 240))),
  };
}
