/**
 * What the deterministic summarizer reads of a message's text — the request line and the constraint
 * sentences of a user's request, the decision sentences of an assistant message — kept per message, one
 * memo per summarizer. A compaction folds a hundred messages or more; the summarizer's `ahead` reads
 * each message as it arrives (above warning, where the compaction stage reads ahead), so the compaction
 * reads only the few it has not seen. The values are functions of the text alone and a hit needs the
 * same text (a message edited in place is read again), so a hit is the answer a fresh read gives.
 * Entries live as long as their messages.
 */
import type { Message } from '../messages/types.ts';
import { clip, clipLine, constraintSentences, decisionSentences } from './extract.ts';

export interface Request {
  line: string;
  constraints: readonly string[];
}

export interface SentenceMemo {
  /** A user's request (`text` is its text): its line for `## Goal` / `Last request` and its constraint sentences, clipped. */
  requestOf(message: Message, text: string): Request;
  /** An assistant message's decision sentences, clipped. */
  decisionsOf(message: Message, text: string): readonly string[];
}

interface Entry {
  text: string;
  request?: Request;
  decisions?: readonly string[];
}

export function createSentenceMemo(): SentenceMemo {
  const memo = new WeakMap<Message, Entry>();
  const entry = (message: Message, text: string): Entry => {
    const hit = memo.get(message);
    if (hit && hit.text === text) return hit;
    const fresh: Entry = { text };
    memo.set(message, fresh);
    return fresh;
  };
  return {
    requestOf(message, text) {
      const e = entry(message, text);
      e.request ??= {
        line: clipLine(text, 400),
        constraints: constraintSentences(text).map((s) => clip(s, 300)),
      };
      return e.request;
    },
    decisionsOf(message, text) {
      const e = entry(message, text);
      e.decisions ??= decisionSentences(text).map((s) => clip(s, 240));
      return e.decisions;
    },
  };
}
