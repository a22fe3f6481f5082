/**
 * Where a client's history stands against a session's log: how far the log's path (the rows a
 * divergence did not take back) matches the history by content digest, the working context cut back
 * to a common prefix after a divergence, and which messages of a prepared context are the client's own
 * (sent back as indices, so the context does not travel back whole).
 */
import type { Message, StoredMessage, WorkingContext } from '../../core/index.ts';
import { messageDigest, storedDigest } from './digest.ts';

const verbatimMemo = new WeakMap<Message, boolean>();

/**
 * Whether a logged message still has the content it came with from a client (its digest is the one
 * it was logged with): not one that output truncation cut on the way in. Memoised per message object
 * (the session object's view keeps its rows between calls).
 */
function verbatim(m: Message): boolean {
  let v = verbatimMemo.get(m);
  if (v === undefined) {
    const d = storedDigest(m);
    v = d !== undefined && messageDigest(m) === d;
    verbatimMemo.set(m, v);
  }
  return v;
}

/**
 * `send` with each message that is, unchanged, the log's copy of the client's message at index `i`
 * replaced by `i`. `path[0..from)` matched the client's history `0..from`; `fresh` follows it.
 */
export function sendRefs(
  send: readonly Message[],
  path: readonly StoredMessage[],
  from: number,
  fresh: readonly Message[],
): Array<Message | number> {
  const index = new Map<Message, number>();
  for (let k = 0; k < from; k++) index.set(path[k]!.message, k);
  fresh.forEach((m, j) => {
    index.set(m, from + j);
  });
  return send.map((m) => {
    const i = index.get(m);
    return i !== undefined && verbatim(m) ? i : m;
  });
}

export function isAbandoned(ranges: ReadonlyArray<[number, number]>, seq: number): boolean {
  return ranges.some(([a, b]) => seq >= a && seq <= b);
}

export function commonPrefix(rows: readonly StoredMessage[], digests: readonly string[]): number {
  const n = Math.min(rows.length, digests.length);
  let k = 0;
  while (k < n && storedDigest(rows[k]!.message) === digests[k]) k++;
  return k;
}

/**
 * The working context without the log rows after `keep` (their seqs stay in the log, unseen), or
 * `undefined` when compaction already folded some of them into a message ctxkit made. `path`: the
 * log rows on the client's path (rows an earlier divergence took back are not).
 */
export function cutWorking(
  working: WorkingContext | null,
  path: readonly StoredMessage[],
  keep: number,
  lastSeq: number,
): WorkingContext | undefined {
  const kept = path.slice(0, keep);
  const cutoff = kept.length > 0 ? kept[kept.length - 1]!.seq : 0;
  if (working === null) return { throughSeq: lastSeq, items: kept.map((r) => ({ seq: r.seq })) };
  if (working.throughSeq <= cutoff)
    return {
      throughSeq: lastSeq,
      items: [
        ...working.items,
        ...kept.filter((r) => r.seq > working.throughSeq).map((r) => ({ seq: r.seq })),
      ],
    };
  // Rows after the cut that the working context no longer references went into a summary (or were
  // dropped): the summary would speak of turns the client took back.
  const refs = new Set(working.items.flatMap((i) => ('seq' in i ? [i.seq] : [])));
  const cutRows = path.filter((r) => r.seq > cutoff && r.seq <= working.throughSeq);
  if (cutRows.some((r) => !refs.has(r.seq))) return undefined;
  const firstCut = working.items.findIndex((i) => 'seq' in i && i.seq > cutoff);
  const items = firstCut < 0 ? working.items : working.items.slice(0, firstCut);
  if (firstCut >= 0 && working.items.slice(firstCut).some((i) => 'message' in i)) return undefined;
  return { throughSeq: lastSeq, items };
}
